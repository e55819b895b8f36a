package io.prefixlog.deploy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * A compose document's services as plain maps: either the file as written (SnakeYAML resolves its
 * anchors and merge keys) or the normalized form {@code docker-compose config} prints.
 */
final class ComposeFile {
  private final Map<String, Map<String, Object>> services;

  private ComposeFile(Map<String, Map<String, Object>> services) {
    this.services = services;
  }

  static ComposeFile parse(String yaml) {
    Object document = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
    if (!(document instanceof Map<?, ?> top) || !(top.get("services") instanceof Map<?, ?> raw)) {
      throw new IllegalArgumentException("not a compose document: no services mapping");
    }
    Map<String, Map<String, Object>> services = new TreeMap<>();
    raw.forEach(
        (name, body) -> {
          Map<String, Object> service = new TreeMap<>();
          if (body instanceof Map<?, ?> map) {
            map.forEach((k, v) -> service.put(String.valueOf(k), v));
          }
          services.put(String.valueOf(name), service);
        });
    return new ComposeFile(services);
  }

  List<String> serviceNames() {
    return List.copyOf(services.keySet());
  }

  Map<String, Object> service(String name) {
    return Objects.requireNonNull(services.get(name), () -> "no service '" + name + "'");
  }

  Optional<String> image(String service) {
    return Optional.ofNullable(service(service).get("image")).map(String::valueOf);
  }

  boolean builds(String service) {
    return service(service).containsKey("build");
  }

  /** The build argument {@code name}, from the map or the {@code NAME=value} list form. */
  Optional<String> buildArg(String service, String name) {
    if (!(service(service).get("build") instanceof Map<?, ?> build)) {
      return Optional.empty();
    }
    Object args = build.get("args");
    if (args instanceof Map<?, ?> map) {
      return Optional.ofNullable(map.get(name)).map(String::valueOf);
    }
    if (args instanceof List<?> list) {
      for (Object entry : list) {
        String s = String.valueOf(entry);
        if (s.startsWith(name + "=")) {
          return Optional.of(s.substring(name.length() + 1));
        }
      }
    }
    return Optional.empty();
  }

  /** The environment variable {@code name}, from the map or the {@code NAME=value} list form. */
  Optional<String> environment(String service, String name) {
    Object environment = service(service).get("environment");
    if (environment instanceof Map<?, ?> map) {
      return Optional.ofNullable(map.get(name)).map(String::valueOf);
    }
    if (environment instanceof List<?> list) {
      for (Object entry : list) {
        String s = String.valueOf(entry);
        if (s.startsWith(name + "=")) {
          return Optional.of(s.substring(name.length() + 1));
        }
      }
    }
    return Optional.empty();
  }

  /** The condition each service {@code service} depends on must reach (long syntax). */
  Map<String, String> dependsOn(String service) {
    Map<String, String> conditions = new TreeMap<>();
    Object dependsOn = service(service).get("depends_on");
    if (dependsOn instanceof Map<?, ?> map) {
      map.forEach(
          (name, body) ->
              conditions.put(
                  String.valueOf(name),
                  body instanceof Map<?, ?> b
                      ? String.valueOf(b.get("condition"))
                      : "service_started"));
    } else {
      strings(dependsOn).forEach(name -> conditions.put(name, "service_started"));
    }
    return conditions;
  }

  /**
   * Where {@code containerPath} comes from on the host: the bind mount (short syntax, {@code
   * HOST:CONTAINER[:MODE]}) of {@code service} whose container side contains it, its host side
   * resolved against {@code root}.
   */
  Optional<Path> hostPath(String service, String containerPath, Path root) {
    for (String volume : strings(service(service).get("volumes"))) {
      String[] parts = volume.split(":");
      if (parts.length < 2 || !parts[0].startsWith(".") && !parts[0].startsWith("/")) {
        continue; // anonymous or named volume
      }
      String target = parts[1];
      if (containerPath.equals(target) || containerPath.startsWith(target + "/")) {
        return Optional.of(
            root.resolve(parts[0])
                .resolve(containerPath.substring(target.length()).replaceFirst("^/", ""))
                .normalize());
      }
    }
    return Optional.empty();
  }

  /** A published port: the host address and port, and the container port. */
  record PublishedPort(String hostIp, String published, String target) {}

  /**
   * The published ports of {@code service} in the normalized form: the long syntax ({@code
   * published}, {@code target}, {@code host_ip}) or the string {@code
   * [IP:]PUBLISHED:TARGET[/proto]} that docker-compose v1 prints when a host address is set. No
   * host address reads as {@code 0.0.0.0}, as Docker binds it.
   */
  List<PublishedPort> ports(String service) {
    List<PublishedPort> ports = new ArrayList<>();
    Object value = service(service).get("ports");
    if (!(value instanceof List<?> list)) {
      return ports;
    }
    for (Object entry : list) {
      if (entry instanceof Map<?, ?> map) {
        Object ip = map.get("host_ip");
        ports.add(
            new PublishedPort(
                ip == null ? "0.0.0.0" : String.valueOf(ip),
                String.valueOf(map.get("published")),
                String.valueOf(map.get("target"))));
      } else {
        String[] parts = String.valueOf(entry).replaceFirst("/[a-z]+$", "").split(":");
        ports.add(
            parts.length == 3
                ? new PublishedPort(parts[0], parts[1], parts[2])
                : new PublishedPort("0.0.0.0", parts[0], parts[parts.length - 1]));
      }
    }
    return ports;
  }

  /** The service's {@code command}, one string per list entry (or the one string). */
  List<String> commandLines(String service) {
    return strings(service(service).get("command"));
  }

  List<String> profiles(String service) {
    return strings(service(service).get("profiles"));
  }

  /** Every image problem: a service with neither a build nor a pinned image. */
  List<String> imageProblems() {
    List<String> problems = new ArrayList<>();
    for (String name : serviceNames()) {
      Optional<String> image = image(name);
      if (builds(name)) {
        continue; // built from this repository; the Dockerfile's base is checked on its own
      }
      if (image.isEmpty()) {
        problems.add(name + ": neither build nor image");
        continue;
      }
      ImagePolicy.problem(image.get()).ifPresent(p -> problems.add(name + ": " + p));
    }
    return problems;
  }

  private static List<String> strings(Object value) {
    if (value instanceof List<?> list) {
      return list.stream().map(String::valueOf).toList();
    }
    return value == null ? List.of() : List.of(String.valueOf(value));
  }
}
