package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The alert rules shipped in deploy/prometheus, checked with Prometheus' own tool (Debian's
 * prometheus package): they load, each alert fires in a test series of its trouble and stays silent
 * in a healthy one, and every prefixlog metric they use is one the code declares.
 */
class PrometheusRulesTest {
  private static final Path PROMTOOL = Path.of("/usr/bin/promtool");
  private static final Pattern METRIC = Pattern.compile("\\bprefixlog_[a-z0-9_]+");
  private static final Pattern LATENCY_SERIES =
      Pattern.compile("_seconds(_(bucket|count|sum|max))?$");

  private static Path rules;
  private static Path tests;

  @BeforeAll
  static void requirePromtool() {
    rules = Repository.root().resolve("deploy/prometheus/prefixlog-alerts.yml");
    tests = Repository.root().resolve("deploy/prometheus/prefixlog-alerts.test.yml");
    if (!Files.isExecutable(PROMTOOL)) {
      String message =
          PROMTOOL + " is missing: scripts/install-test-deps.sh installs it (Debian: prometheus)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true and " + message);
      }
      Assumptions.abort(message);
    }
  }

  @Test
  void shouldLoadWithPromtoolCheckRules() throws Exception {
    assertThat(promtool("check", "rules", rules.toString())).contains("SUCCESS");
  }

  @Test
  void shouldPassPromtoolTestRules() throws Exception {
    assertThat(promtool("test", "rules", tests.toString())).contains("SUCCESS");
  }

  @Test
  void shouldTestEveryAlertFiringAndSilent() throws IOException {
    Set<String> alerts = alertNames();
    Set<String> firing = new TreeSet<>();
    Set<String> silent = new TreeSet<>();
    for (Map<String, Object> test : list(load(tests).get("tests"))) {
      for (Map<String, Object> check : list(test.get("alert_rule_test"))) {
        String alert = (String) check.get("alertname");
        (list(check.get("exp_alerts")).isEmpty() ? silent : firing).add(alert);
      }
    }
    assertThat(alerts).hasSizeGreaterThanOrEqualTo(10);
    assertThat(firing).as("alerts with a series where they fire").isEqualTo(alerts);
    assertThat(silent).as("alerts with a series where they stay silent").isEqualTo(alerts);
  }

  @Test
  void shouldOnlyUseMetricsTheCodeDeclares() throws IOException {
    String declared = mainSources();
    Set<String> unknown = new TreeSet<>();
    Matcher m = METRIC.matcher(Files.readString(rules));
    while (m.find()) {
      String name = LATENCY_SERIES.matcher(m.group()).replaceFirst("");
      if (!declared.contains("\"" + name + "\"")) {
        unknown.add(m.group());
      }
    }
    assertThat(unknown).as("metrics in the rules that no meter declares").isEmpty();
  }

  private static Set<String> alertNames() throws IOException {
    Set<String> names = new TreeSet<>();
    for (Map<String, Object> group : list(load(rules).get("groups"))) {
      for (Map<String, Object> rule : list(group.get("rules"))) {
        names.add((String) rule.get("alert"));
      }
    }
    return names;
  }

  /** Every Java main source of the services that declare meters, concatenated. */
  private static String mainSources() throws IOException {
    StringBuilder all = new StringBuilder();
    for (String module : List.of("stream-app", "ingest-bridge", "core")) {
      try (Stream<Path> files = Files.walk(Repository.root().resolve(module + "/src/main/java"))) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          all.append(Files.readString(file));
        }
      }
    }
    return all.toString();
  }

  private static String promtool(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(PROMTOOL.toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(String.join(" ", args) + ":\n" + output).isZero();
    return output;
  }

  private static Map<String, Object> load(Path file) throws IOException {
    return new Yaml().load(Files.readString(file));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Object value) {
    return value == null ? List.of() : (List<Map<String, Object>>) value;
  }
}
