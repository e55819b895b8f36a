package io.prefixlog.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.prefixlog.architecture.MethodLengthLimit.Allowed;
import io.prefixlog.architecture.MethodLengthLimit.Method;
import io.prefixlog.architecture.fixture.benchmarks.BenchmarkUsingBridgeTestPublisher;
import io.prefixlog.architecture.fixture.benchmarks.BenchmarkUsingCoreTestClock;
import io.prefixlog.architecture.fixture.bridge.Proxy;
import io.prefixlog.architecture.fixture.bridge.TestOnlyPublisher;
import io.prefixlog.architecture.fixture.core.CoreUsingAssertJ;
import io.prefixlog.architecture.fixture.core.CoreUsingStreams;
import io.prefixlog.architecture.fixture.core.CoreUsingTestClock;
import io.prefixlog.architecture.fixture.core.Logic;
import io.prefixlog.architecture.fixture.core.TestOnlyClock;
import io.prefixlog.architecture.fixture.core.cycle.a.First;
import io.prefixlog.architecture.fixture.core.cycle.b.Second;
import io.prefixlog.architecture.fixture.embedded.junit.JunitExtension;
import io.prefixlog.architecture.fixture.schemas.Wire;
import io.prefixlog.architecture.fixture.streams.StreamsUsingBridge;
import io.prefixlog.architecture.fixture.streams.Topology;
import io.prefixlog.architecture.fixture.tools.Launcher;
import io.prefixlog.architecture.fixture.tools.cli.Cli;
import io.prefixlog.architecture.fixture.tools.ui.UiPart;
import io.prefixlog.architecture.fixture.tools.up.UpPart;
import io.prefixlog.architecture.fixture.unplaced.Orphan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each rule of {@link ArchitectureTest} fails on a planted violation: the same rules, evaluated on
 * the fixtures in {@code io.prefixlog.architecture.fixture} (laid out like the modules, with
 * classes named {@code TestOnly...} standing for test code) and, for the method length, on sources
 * written here. Each test also shows the rule passing the allowed counterpart, so a rule that
 * failed on everything would not pass either.
 */
class ArchitecturePlantedViolationsTest {

  private static final ArchitectureRules RULES =
      new ArchitectureRules(
          "io.prefixlog.architecture.fixture",
          describe("planted test code", (JavaClass c) -> c.getSimpleName().startsWith("TestOnly")));

  private static final List<Class<?>> ALLOWED_LAYERING =
      List.of(Wire.class, Logic.class, Topology.class, Proxy.class);

  @Test
  void shouldPassTheLayeringOfAllowedDependencies() {
    assertThat(violations(RULES.layering(), ALLOWED_LAYERING)).isEmpty();
  }

  @Test
  void shouldReportCoreUsingTheStreamApp() {
    // When
    List<String> violations =
        violations(RULES.layering(), with(ALLOWED_LAYERING, CoreUsingStreams.class));

    // Then
    assertThat(violations)
        .singleElement()
        .asString()
        .contains(CoreUsingStreams.class.getName(), Topology.class.getName());
  }

  @Test
  void shouldReportTheStreamAppUsingTheBridge() {
    // When
    List<String> violations =
        violations(RULES.layering(), with(ALLOWED_LAYERING, StreamsUsingBridge.class));

    // Then
    assertThat(violations)
        .singleElement()
        .asString()
        .contains(StreamsUsingBridge.class.getName(), Proxy.class.getName());
  }

  @Test
  void shouldReportMainCodeInNoModule() {
    // When
    List<String> violations = violations(RULES.layering(), with(ALLOWED_LAYERING, Orphan.class));

    // Then
    assertThat(violations)
        .singleElement()
        .asString()
        .contains(Orphan.class.getName(), "not contained");
  }

  @Test
  void shouldReportMainCodeUsingTestCode() {
    // When
    List<String> violations =
        violations(
            RULES.mainCodeDoesNotUseTestCode(),
            List.of(
                CoreUsingTestClock.class,
                TestOnlyClock.class,
                BenchmarkUsingCoreTestClock.class,
                BenchmarkUsingBridgeTestPublisher.class,
                TestOnlyPublisher.class));

    // Then: each use is reported, benchmarks' included (no module's main code may use test code)
    assertThat(violations).hasSize(3);
    assertThat(violations)
        .anySatisfy(
            v -> assertThat(v).contains(CoreUsingTestClock.class.getName(), "TestOnlyClock.now"))
        .anySatisfy(
            v ->
                assertThat(v)
                    .contains(BenchmarkUsingCoreTestClock.class.getName(), "TestOnlyClock.now"))
        .anySatisfy(
            v ->
                assertThat(v)
                    .contains(
                        BenchmarkUsingBridgeTestPublisher.class.getName(), "TestOnlyPublisher"));
  }

  @Test
  void shouldReportMainCodeUsingATestLibrary() {
    // When
    List<String> violations =
        violations(
            RULES.mainCodeDoesNotUseTestLibraries(),
            List.of(CoreUsingAssertJ.class, JunitExtension.class, Logic.class));

    // Then: the test support module may use JUnit
    assertThat(violations).isNotEmpty().allSatisfy(v -> assertThat(v).contains("CoreUsingAssertJ"));
    assertThat(violations).anySatisfy(v -> assertThat(v).contains("org.assertj"));
  }

  @Test
  void shouldReportAPackageCycle() {
    // When
    List<String> violations =
        violations(RULES.noPackageCycles(), List.of(First.class, Second.class, Logic.class));

    // Then
    assertThat(violations)
        .singleElement()
        .asString()
        .contains("Cycle detected", "fixture.core.cycle.a", "fixture.core.cycle.b");
  }

  @Test
  void shouldTolerateOnlyTheKnownPackageCycles() {
    // Given: tools, tools.up and tools.ui are in the known group of tools; tools.cli is not
    List<Class<?>> known = List.of(Launcher.class, UpPart.class, UiPart.class);

    // Then
    assertThat(violations(RULES.noPackageCycles(), known)).isEmpty();
    assertThat(violations(RULES.noPackageCycles(), with(known, Cli.class)))
        .singleElement()
        .asString()
        .contains("Cycle detected", "fixture.tools.cli", "known cycle of tools");
  }

  @Test
  void shouldTellTestOutputFromMainOutput() {
    assertThat(ArchitectureRules.isTestOutput("file:/r/core/target/test-classes/a/B.class"))
        .isTrue();
    assertThat(
            ArchitectureRules.isTestOutput(
                "jar:file:/r/ingest-bridge/target/prefixlog-ingest-bridge-0.1.0-SNAPSHOT-tests.jar!/a/B.class"))
        .isTrue();
    assertThat(ArchitectureRules.isTestOutput("file:/r/core/target/classes/a/B.class")).isFalse();
    assertThat(
            ArchitectureRules.isTestOutput(
                "jar:file:/m2/io/prefixlog/prefixlog-core-0.1.0-SNAPSHOT.jar!/a/B.class"))
        .isFalse();
    assertThat(
            ArchitectureRules.IN_TEST_OUTPUT.test(
                new ClassFileImporter().importClass(ArchitectureTest.class)))
        .isTrue();
  }

  @Test
  void shouldReportAMethodOverTheLimit(@TempDir Path dir) throws IOException {
    // Given: a body of 101 lines and one of exactly 100
    Path source =
        write(
            dir, "Planted", method("tooLong", 101) + method("justRight", 100) + "  Planted() {}\n");
    MethodLengthLimit limit = new MethodLengthLimit(100, Map.of());

    // When
    List<Method> methods = MethodLengthLimit.measure(dir, List.of(source));

    // Then
    assertThat(methods)
        .extracting(Method::key, Method::lines)
        .containsExactly(
            tuple("Planted.tooLong", 101L),
            tuple("Planted.justRight", 100L),
            tuple("Planted.<init>", 1L));
    assertThat(limit.violations(methods))
        .singleElement()
        .asString()
        .contains("Planted.tooLong (Planted.java:", "101 lines", "limit of 100");
  }

  @Test
  void shouldReportAnAllowListedMethodThatGrew(@TempDir Path dir) throws IOException {
    // Given: allowed 110 lines; one method has 110, the other grew to 111
    Path source = write(dir, "Planted", method("kept", 110) + method("grown", 110 + 1));
    MethodLengthLimit limit =
        new MethodLengthLimit(
            100,
            Map.of(
                "Planted.kept", new Allowed(110, "planted"),
                "Planted.grown", new Allowed(110, "planted"),
                "Planted.gone", new Allowed(120, "planted")));

    // When
    List<Method> methods = MethodLengthLimit.measure(dir, List.of(source));

    // Then
    assertThat(limit.violations(methods))
        .singleElement()
        .asString()
        .contains("Planted.grown", "111 lines", "allow-listed 110");
    assertThat(limit.unusedEntries(methods)).containsExactly("Planted.gone");
  }

  @Test
  void shouldCountAnonymousClassesAndLambdasInTheMethodAroundThem(@TempDir Path dir)
      throws IOException {
    // Given: the lambda and the anonymous class are written inside outer's body
    String outer =
        "  Runnable outer() {\n"
            + "    Runnable lambda =\n"
            + "        () -> {\n"
            + "          System.out.println(1);\n"
            + "        };\n"
            + "    return new Runnable() {\n"
            + "      @Override\n"
            + "      public void run() {\n"
            + "        lambda.run();\n"
            + "      }\n"
            + "    };\n"
            + "  }\n";
    Path source = write(dir, "Planted", outer);

    // When
    List<Method> methods = MethodLengthLimit.measure(dir, List.of(source));

    // Then: outer spans its 12 lines; the anonymous class's run is counted under Planted too
    assertThat(methods)
        .extracting(Method::key, Method::lines)
        .containsExactly(tuple("Planted.outer", 12L), tuple("Planted.run", 3L));
  }

  private static List<String> violations(ArchRule rule, List<Class<?>> classes) {
    JavaClasses imported = new ClassFileImporter().importClasses(classes);
    EvaluationResult result = rule.evaluate(imported);
    return result.getFailureReport().getDetails();
  }

  private static List<Class<?>> with(List<Class<?>> classes, Class<?> planted) {
    return Stream.concat(classes.stream(), Stream.of(planted)).toList();
  }

  /** A method whose body spans {@code lines} lines, braces included. */
  private static String method(String name, int lines) {
    StringBuilder body = new StringBuilder("  void " + name + "() {\n");
    for (int i = 0; i < lines - 2; i++) {
      body.append("    // line ").append(i + 2).append('\n');
    }
    return body.append("  }\n").toString();
  }

  private static Path write(Path dir, String className, String members) throws IOException {
    Path source = dir.resolve(className + ".java");
    Files.writeString(source, "class " + className + " {\n" + members + "}\n");
    return source;
  }
}
