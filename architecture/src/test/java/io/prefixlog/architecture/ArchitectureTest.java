package io.prefixlog.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.prefixlog.architecture.ArchitectureRules.Module;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture rules on every module's main classes (README, "Layout"). The classes come from
 * this module's test classpath, which holds every module's main output.
 */
class ArchitectureTest {

  private static final ArchitectureRules RULES = ArchitectureRules.prefixlog();

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter().importPackages("io.prefixlog");
  }

  @Test
  void shouldSeeTheMainClassesOfEveryModule() {
    // Given
    Map<String, Long> mainClassesByModule =
        classes.stream()
            .filter(RULES.mainCode())
            .collect(
                Collectors.groupingBy(
                    c -> RULES.moduleOf(c.getPackageName()).map(Module::name).orElse("none"),
                    Collectors.counting()));

    // Then: the rules below are not vacuous
    assertThat(mainClassesByModule.keySet())
        .containsAll(ArchitectureRules.MODULES.stream().map(Module::name).toList());
  }

  @Test
  void shouldKeepTheModuleLayering() {
    RULES.layering().check(classes);
  }

  @Test
  void shouldKeepTestCodeOutOfMainCode() {
    RULES.mainCodeDoesNotUseTestCode().check(classes);
  }

  @Test
  void shouldKeepTestLibrariesOutOfMainCode() {
    RULES.mainCodeDoesNotUseTestLibraries().check(classes);
  }

  @Test
  void shouldHaveNoPackageCycles() {
    RULES.noPackageCycles().check(classes);
  }
}
