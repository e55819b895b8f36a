package io.prefixlog.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The module and package rules, written once and evaluated on two sets of classes: every module's
 * main classes ({@link ArchitectureTest}, base package {@code io.prefixlog}) and small planted
 * fixtures ({@link ArchitecturePlantedViolationsTest}, base package {@code
 * io.prefixlog.architecture.fixture}), so that each rule is shown to fail on a violation.
 *
 * <p>A module is known by its root package below the base (the modules' packages do not overlap,
 * except that {@code embedded.junit} is its own module inside {@code embedded}'s; the longest root
 * wins). What a module may use is its main dependencies in the POMs, transitive ones included: the
 * rules keep a new {@code <dependency>} from quietly changing the layering.
 *
 * <p>Why ArchUnit (the plain library, not its JUnit engine): it reads the compiled classes, so a
 * dependency written with a fully qualified name or through a lambda counts as much as an import;
 * the same rule objects run on the real classes and on the fixtures; and its failures name the
 * class, the dependency and the source line. It does not see where a method ends, so the method
 * length is measured on the sources instead ({@link MethodLengthLimit}).
 */
final class ArchitectureRules {

  /** One module of the reactor: its folder, its root package below the base, what it may use. */
  record Module(String name, String rootPackage, List<String> mayUse) {}

  /** Every module with main code, in build order; deploy has tests only. */
  static final List<Module> MODULES =
      List.of(
          new Module("schemas", "schemas", List.of()),
          new Module("core", "core", List.of("schemas")),
          // The what-if analyses: only the tools and the benchmarks use them.
          new Module("analysis", "analysis", List.of("core", "schemas")),
          // The command-line kit the tools and the benchmarks share.
          new Module("cli", "cli", List.of("core", "schemas")),
          new Module("embedded", "embedded", List.of("schemas")),
          new Module("embedded-junit", "embedded.junit", List.of("embedded", "schemas")),
          new Module("demo-engine", "demo", List.of("core", "schemas")),
          // The bridge and the stream app never use each other, nor the tools or the archive.
          new Module("stream-app", "streams", List.of("core", "schemas")),
          new Module("ingest-bridge", "bridge", List.of("core", "schemas")),
          new Module("archive", "archive", List.of("embedded", "schemas")),
          new Module(
              "tools",
              "tools",
              List.of(
                  "schemas",
                  "core",
                  "analysis",
                  "cli",
                  "embedded",
                  "demo-engine",
                  "stream-app",
                  "ingest-bridge",
                  "archive")),
          new Module(
              "benchmarks",
              "benchmarks",
              List.of(
                  "schemas",
                  "core",
                  "analysis",
                  "cli",
                  "embedded",
                  "demo-engine",
                  "stream-app",
                  "ingest-bridge",
                  "archive",
                  "tools")));

  /**
   * Test libraries that no main code uses; embedded-junit, the test support module (test scope
   * only, the enforcer sees to that), is made of JUnit and is exempt.
   */
  static final List<String> TEST_LIBRARIES =
      List.of("org.junit..", "org.assertj..", "org.awaitility..", "org.mockito..");

  private static final String TEST_SUPPORT_MODULE = "embedded-junit";

  /** Compiled test classes: Maven's test output folder, or a test-jar. */
  private static final Pattern TEST_OUTPUT =
      Pattern.compile(".*(/target/test-classes/|-tests\\.jar!/).*");

  /** A class found in a test output folder or a test-jar. */
  static final DescribedPredicate<JavaClass> IN_TEST_OUTPUT =
      describe(
          "test code (target/test-classes or a -tests.jar)",
          c -> c.getSource().map(source -> isTestOutput(source.getUri().toString())).orElse(false));

  /** Whether a class file's URI is in Maven's test output folder or in a test-jar. */
  static boolean isTestOutput(String classFileUri) {
    return TEST_OUTPUT.matcher(classFileUri).matches();
  }

  private final String base;
  private final DescribedPredicate<JavaClass> testCode;

  /**
   * @param base the package the modules' root packages are below
   * @param testCode which of the classes are test code (the rules are about main code)
   */
  ArchitectureRules(String base, DescribedPredicate<JavaClass> testCode) {
    this.base = base;
    this.testCode = testCode;
  }

  /** The rules for prefixlog's own classes. */
  static ArchitectureRules prefixlog() {
    return new ArchitectureRules("io.prefixlog", IN_TEST_OUTPUT);
  }

  /** The module a package belongs to: the module with the longest root package containing it. */
  Optional<Module> moduleOf(String packageName) {
    return MODULES.stream()
        .filter(
            m -> {
              String root = base + "." + m.rootPackage();
              return packageName.equals(root) || packageName.startsWith(root + ".");
            })
        .max(Comparator.comparingInt(m -> m.rootPackage().length()));
  }

  private DescribedPredicate<JavaClass> inModule(String name) {
    return describe(
        "in module " + name,
        c -> moduleOf(c.getPackageName()).map(m -> m.name().equals(name)).orElse(false));
  }

  private DescribedPredicate<JavaClass> underBase() {
    return resideInAnyPackage(base + "..");
  }

  /** Main code below the base package: not test code. */
  DescribedPredicate<JavaClass> mainCode() {
    return describe("main code", c -> underBase().test(c) && !testCode.test(c));
  }

  /**
   * Each module's main code uses only the modules it may use; every main class below the base is in
   * a module (a new package outside every module's root fails here until it is placed).
   */
  ArchRule layering() {
    LayeredArchitecture layers =
        layeredArchitecture().consideringOnlyDependenciesInLayers().withOptionalLayers(true);
    for (Module m : MODULES) {
      layers = layers.layer(m.name()).definedBy(inModule(m.name()).and(not(testCode)));
    }
    for (Module m : MODULES) {
      layers =
          m.mayUse().isEmpty()
              ? layers.whereLayer(m.name()).mayNotAccessAnyLayer()
              : layers.whereLayer(m.name()).mayOnlyAccessLayers(m.mayUse().toArray(String[]::new));
    }
    return layers
        .ensureAllClassesAreContainedInArchitectureIgnoring(not(mainCode()))
        .as("each module's main code uses only the modules below it (the POMs' main dependencies)");
  }

  /**
   * No main class uses a test class (of any module whose test classes are on the classpath: a
   * test-jar is the only way main code can reach them).
   */
  ArchRule mainCodeDoesNotUseTestCode() {
    return classes()
        .that(mainCode())
        .should(notUseTestCode())
        .as("main code does not use test code")
        .allowEmptyShould(true);
  }

  private ArchCondition<JavaClass> notUseTestCode() {
    return new ArchCondition<>("not use test code") {
      @Override
      public void check(JavaClass origin, ConditionEvents events) {
        for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
          JavaClass target = dependency.getTargetClass();
          if (!underBase().test(target) || !testCode.test(target)) {
            continue;
          }
          events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription()));
        }
      }
    };
  }

  /** No production main code uses a test library; embedded-junit is the test support. */
  ArchRule mainCodeDoesNotUseTestLibraries() {
    return noClasses()
        .that(mainCode().and(not(inModule(TEST_SUPPORT_MODULE))))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(TEST_LIBRARIES.toArray(String[]::new))
        .as(
            "main code outside "
                + TEST_SUPPORT_MODULE
                + " does not use JUnit, AssertJ and the like")
        .allowEmptyShould(true);
  }

  /**
   * The package cycles that main code has today, each a group of packages (below the base) that use
   * one another: the cycle rule takes each group as one slice, so a cycle inside a group is
   * tolerated, and any other cycle (between other packages, or between a group and a package
   * outside it) fails. Breaking a group's cycles and shrinking it here is welcome; growing it is
   * not. In each group the module's root package and its subpackages use each other (the root holds
   * the shared types and the main that wires the subpackages), and in tools analyze and reconstruct
   * also use each other.
   */
  static final Map<String, Set<String>> KNOWN_PACKAGE_CYCLES =
      Map.of(
          "stream-app",
          Set.of(
              "streams",
              "streams.admin",
              "streams.kv",
              "streams.lookup",
              "streams.query",
              "streams.session",
              "streams.topology"),
          "archive",
          Set.of("archive", "archive.read"),
          "tools",
          Set.of(
              "tools",
              "tools.analyze",
              "tools.archive",
              "tools.erase",
              "tools.reconstruct",
              "tools.replay",
              "tools.settings",
              "tools.smoke",
              "tools.ui",
              "tools.up"));

  /**
   * The packages of main code have no cycles, but inside {@link #KNOWN_PACKAGE_CYCLES}. One slice
   * per package; across modules a cycle cannot happen (the modules are layered), so this is the
   * rule within each module.
   */
  ArchRule noPackageCycles() {
    return slices()
        .assignedFrom(
            new SliceAssignment() {
              @Override
              public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                if (!mainCode().test(javaClass)) {
                  return SliceIdentifier.ignore();
                }
                String name = javaClass.getPackageName();
                String relative = name.equals(base) ? "" : name.substring(base.length() + 1);
                return KNOWN_PACKAGE_CYCLES.entrySet().stream()
                    .filter(group -> group.getValue().contains(relative))
                    .map(group -> SliceIdentifier.of("known cycle of " + group.getKey()))
                    .findFirst()
                    .orElse(SliceIdentifier.of(name));
              }

              @Override
              public String getDescription() {
                return "the packages of main code below " + base;
              }
            })
        .should()
        .beFreeOfCycles()
        .as("the packages of main code are free of cycles (but the known ones)")
        .allowEmptyShould(true);
  }
}
