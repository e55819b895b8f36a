package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * docker-compose.yml relies only on what the offline stand-ins provide
 * (deploy/standins/interfaces.yml): their entrypoints' variables and commands, the programs compose
 * runs in them, their ports and volumes. When compose starts to use something new of a third-party
 * image, this fails until the interface (and the stand-in's recipe) says it is there; the compose
 * smoke test proves it runs.
 */
class StandinInterfaceTest {
  private static final Path ROOT = Repository.root();
  private static final Pattern ABSOLUTE_PROGRAM =
      Pattern.compile("(/(?:opt/kafka/bin|etc/kafka)/[\\w./-]+)");
  private static final Pattern MC = Pattern.compile("\\bmc\\s+([a-z]+)");
  private static final Pattern TCP_PORT = Pattern.compile("/dev/tcp/[\\w.]+/(\\d+)|kafka:(\\d+)");

  /** One image's interface. */
  private record Interface(
      List<String> environment,
      List<String> command,
      List<String> executables,
      List<String> mc,
      List<String> ports,
      List<String> volumes) {
    static Interface of(Map<?, ?> map) {
      return new Interface(
          strings(map.get("environment")),
          strings(map.get("command")),
          strings(map.get("executables")),
          strings(map.get("mc")),
          strings(map.get("ports")),
          strings(map.get("volumes")));
    }

    boolean allowsVariable(String name) {
      return environment.stream()
          .anyMatch(
              p ->
                  p.endsWith("*")
                      ? name.startsWith(p.substring(0, p.length() - 1))
                      : p.equals(name));
    }
  }

  private static Map<String, Interface> interfaces() throws Exception {
    Map<?, ?> raw = load(ROOT.resolve("deploy/standins/interfaces.yml"));
    Map<String, Interface> interfaces = new java.util.TreeMap<>();
    raw.forEach(
        (image, body) -> interfaces.put(String.valueOf(image), Interface.of((Map<?, ?>) body)));
    return interfaces;
  }

  /**
   * The text of the script a {@code /bin/sh PATH} entrypoint runs, when compose mounts it from this
   * repository: what it runs is what the image must provide, as for an inline command.
   */
  private static List<String> mountedScripts(Map<?, ?> service, List<String> entrypoint)
      throws java.io.IOException {
    if (entrypoint.size() != 2 || !entrypoint.get(0).equals("/bin/sh")) {
      return List.of();
    }
    List<String> texts = new ArrayList<>();
    for (String volume : strings(service.get("volumes"))) {
      String[] parts = volume.split(":");
      if (parts.length >= 2 && parts[1].equals(entrypoint.get(1)) && parts[0].startsWith("./")) {
        texts.add(Files.readString(ROOT.resolve(parts[0].substring(2)), StandardCharsets.UTF_8));
      }
    }
    return texts;
  }

  private static Map<String, Map<?, ?>> services() throws Exception {
    Map<?, ?> compose = load(ROOT.resolve(Repository.COMPOSE_FILE));
    Map<String, Map<?, ?>> services = new java.util.TreeMap<>();
    ((Map<?, ?>) compose.get("services"))
        .forEach((name, body) -> services.put(String.valueOf(name), (Map<?, ?>) body));
    return services;
  }

  @Test
  void shouldUseOnlyWhatEachStandInProvides() throws Exception {
    Map<String, Interface> interfaces = interfaces();
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Map.Entry<String, Map<?, ?>> e : services().entrySet()) {
      String service = e.getKey();
      Map<?, ?> body = e.getValue();
      String image = String.valueOf(body.get("image"));
      Interface provided = interfaces.get(image);
      if (provided == null) {
        continue; // built here (prefixlog/*) or a GPU-only image (checked below)
      }
      checked++;
      List<String> entrypoint = strings(body.get("entrypoint"));
      List<String> command = strings(body.get("command"));
      if (entrypoint.isEmpty()) {
        // The image's own entrypoint reads the environment and takes the command.
        if (body.get("environment") instanceof Map<?, ?> env) {
          env.keySet().stream()
              .map(String::valueOf)
              .filter(name -> !provided.allowsVariable(name))
              .forEach(name -> problems.add(service + ": variable " + name));
        }
        // A command's first word: a subcommand, or a flag (its name, without "=value").
        String first = command.isEmpty() ? null : command.get(0).split("=", 2)[0];
        if (first != null && !provided.command().contains(first)) {
          problems.add(service + ": command " + first);
        }
      } else if (!provided.executables().contains(entrypoint.get(0))) {
        problems.add(service + ": entrypoint " + entrypoint.get(0));
      }
      List<String> texts = new ArrayList<>(entrypoint);
      texts.addAll(command);
      texts.addAll(mountedScripts(body, entrypoint));
      if (body.get("healthcheck") instanceof Map<?, ?> health) {
        List<String> test = strings(health.get("test"));
        if (test.size() > 1) {
          String program =
              test.get(0).equals("CMD-SHELL") ? test.get(1).strip().split("\\s+")[0] : test.get(1);
          if (!provided.executables().contains(program)) {
            problems.add(service + ": health check runs " + program);
          }
          texts.addAll(test);
        }
      }
      for (String text : texts) {
        find(ABSOLUTE_PROGRAM, text).stream()
            .filter(path -> !provided.executables().contains(path))
            .forEach(path -> problems.add(service + ": runs " + path));
        find(MC, text).stream()
            .filter(sub -> !provided.mc().contains(sub))
            .forEach(sub -> problems.add(service + ": mc " + sub));
        if (!find(MC, text).isEmpty() && !provided.executables().contains("mc")) {
          problems.add(service + ": runs mc");
        }
        find(TCP_PORT, text).stream()
            .filter(port -> !provided.ports().contains(port))
            .forEach(port -> problems.add(service + ": reaches port " + port));
      }
      for (String port : strings(body.get("ports"))) {
        String container = port.substring(port.lastIndexOf(':') + 1).replaceFirst("/.*", "");
        if (!provided.ports().contains(container)) {
          problems.add(service + ": publishes port " + container);
        }
      }
      for (String volume : strings(body.get("volumes"))) {
        String[] parts = volume.split(":");
        boolean bindMount =
            parts.length > 1 && (parts[0].startsWith(".") || parts[0].startsWith("/"));
        String target = parts.length > 1 ? parts[1] : parts[0];
        if (!bindMount && !provided.volumes().contains(target)) {
          problems.add(service + ": mounts a volume on " + target);
        }
      }
    }
    assertThat(checked).as("services on stand-in images").isGreaterThanOrEqualTo(8);
    assertThat(problems).as("what compose uses that no stand-in provides").isEmpty();
  }

  @Test
  void shouldHaveAStandInForEveryThirdPartyImageAnOfflineRunNeeds() throws Exception {
    Map<String, Interface> interfaces = interfaces();
    Set<String> needed = new TreeSet<>();
    for (Map<?, ?> body : services().values()) {
      String image = String.valueOf(body.get("image"));
      boolean gpuOnly = strings(body.get("profiles")).contains("gpu");
      if (!image.startsWith("prefixlog/") && !gpuOnly) {
        needed.add(image);
      }
    }
    String dockerfile =
        Files.readString(ROOT.resolve("deploy/docker/Dockerfile"), StandardCharsets.UTF_8);
    Matcher from = Pattern.compile("(?m)^FROM\\s+(\\S+)").matcher(dockerfile);
    assertThat(from.find()).isTrue();
    needed.add(from.group(1));
    assertThat(interfaces.keySet()).containsAll(needed);
    // The Dockerfile's RUN uses useradd of its base.
    assertThat(interfaces.get(from.group(1)).executables()).contains("useradd");
    // and every interface has a recipe that builds and labels it
    Set<String> labelled = new TreeSet<>();
    try (Stream<Path> files = Files.walk(ROOT.resolve("deploy/standins"))) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().equals("Dockerfile")).toList()) {
        find(Pattern.compile("io\\.prefixlog\\.stand-in=\"([^\"]+)\""), Files.readString(file))
            .forEach(labelled::add);
      }
    }
    assertThat(labelled).containsAll(interfaces.keySet());
  }

  private static List<String> find(Pattern pattern, String text) {
    List<String> found = new ArrayList<>();
    Matcher m = pattern.matcher(text);
    while (m.find()) {
      for (int g = 1; g <= m.groupCount(); g++) {
        if (m.group(g) != null) {
          found.add(m.group(g).replaceAll("[;'\"]+$", ""));
        }
      }
    }
    return found;
  }

  private static Map<?, ?> load(Path file) throws Exception {
    return (Map<?, ?>)
        new Yaml(new SafeConstructor(new LoaderOptions()))
            .load(Files.readString(file, StandardCharsets.UTF_8));
  }

  private static List<String> strings(Object value) {
    if (value instanceof List<?> list) {
      return list.stream().map(String::valueOf).toList();
    }
    return value == null ? List.of() : List.of(String.valueOf(value));
  }
}
