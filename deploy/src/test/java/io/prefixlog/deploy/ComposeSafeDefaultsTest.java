package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.config.UnsafeDefaults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docker-compose.yml is safe by default: it refuses to start without its secrets, publishes on
 * loopback unless told otherwise (and never publishes an unauthenticated endpoint beyond it),
 * publishes Connect's REST API only through its opt-in override, and {@code
 * bin/prefixlog-compose-env} writes random secrets once. The bridge's own refusal of a placeholder
 * secret with compose's environment is {@code ImageLayoutIT}'s (the image's start-up).
 */
class ComposeSafeDefaultsTest {
  private static final Path ROOT = Repository.root();
  private static final Path COMPOSE = ROOT.resolve(Repository.COMPOSE_FILE);
  private static final Path SASL_OVERRIDE =
      ROOT.resolve("deploy/compose/kafka-remote-sasl-ssl.yml");
  private static final Path CONNECT_REST_OVERRIDE = ROOT.resolve("deploy/compose/connect-rest.yml");

  @TempDir Path dir;

  /** The deployment's env file with {@code changes} applied (a null value removes the line). */
  private Path envFile(Map<String, String> changes) throws Exception {
    Map<String, String> values = new LinkedHashMap<>(read(DockerCompose.deploymentEnv()));
    changes.forEach(
        (k, v) -> {
          if (v == null) {
            values.remove(k);
          } else {
            values.put(k, v);
          }
        });
    Path file = Files.createTempFile(dir, "compose", ".env");
    Files.writeString(
        file,
        values.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue() + "\n")
            .collect(Collectors.joining()));
    return file;
  }

  private static Map<String, String> read(Path envFile) throws Exception {
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : Files.readAllLines(envFile)) {
      int eq = line.indexOf('=');
      if (eq > 0 && !line.startsWith("#")) {
        values.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return values;
  }

  private static ComposeFile config(Path envFile, Path... files) throws Exception {
    DockerCompose.Result result = configResult(envFile, files);
    assertThat(result.exitCode()).as("docker-compose config:\n%s", result.stderr()).isZero();
    return ComposeFile.parse(result.stdout());
  }

  private static DockerCompose.Result configResult(Path envFile, Path... files) throws Exception {
    List<String> args = new java.util.ArrayList<>();
    for (Path file : files.length == 0 ? new Path[] {COMPOSE} : files) {
      args.add("-f");
      args.add(file.toString());
    }
    args.add("config");
    return DockerCompose.require().run(ROOT, envFile, args.toArray(String[]::new));
  }

  @Test
  void shouldRefuseToStartWithoutEachSecret() throws Exception {
    for (String secret : DockerCompose.COMPOSE_SECRETS) {
      // Given: every secret but one (missing, or empty as copied from an example)
      for (String value : new String[] {null, ""}) {
        Map<String, String> change = new java.util.HashMap<>();
        change.put(secret, value);

        // When
        DockerCompose.Result result = configResult(envFile(change));

        // Then
        assertThat(result.exitCode()).as("%s=%s accepted", secret, value).isNotZero();
        assertThat(result.stderr()).contains("set " + secret).contains("bin/prefixlog-compose-env");
      }
    }
  }

  @Test
  void shouldGiveNoSecretADefaultInTheFile() throws Exception {
    String yaml = Files.readString(COMPOSE);
    Matcher uses = Pattern.compile("\\$\\{([A-Z0-9_]+)([^}]*)}").matcher(yaml);
    int checked = 0;
    while (uses.find()) {
      if (DockerCompose.COMPOSE_SECRETS.contains(uses.group(1))) {
        assertThat(uses.group(2)).as("${%s%s}", uses.group(1), uses.group(2)).startsWith(":?");
        checked++;
      }
    }
    // The bridge's secret, MinIO's (server, bucket set-up, catalog and sink S3 key) and
    // PostgreSQL's (server, catalog): no use left out.
    assertThat(checked).isGreaterThanOrEqualTo(6);
    assertThat(yaml).doesNotContain("change-me").doesNotContain("prefixlog-secret");
  }

  @Test
  void shouldPublishEveryPortOnLoopbackByDefault() throws Exception {
    ComposeFile compose = config(DockerCompose.deploymentEnv());

    int published = 0;
    for (String service : compose.serviceNames()) {
      for (ComposeFile.PublishedPort port : compose.ports(service)) {
        assertThat(port.hostIp()).as("%s %s", service, port).isEqualTo("127.0.0.1");
        published++;
      }
    }
    assertThat(published).isEqualTo(10);
  }

  @Test
  void probePublishesOnlyTheProxyAndTheRemoteKafkaListenerWhenToldToBindAll() throws Exception {
    // Given: the documented remote-Kafka deployment, told to publish on every interface
    ComposeFile compose =
        config(
            envFile(
                Map.of(
                    "PREFIXLOG_BIND_ADDRESS", "0.0.0.0",
                    "KAFKA_REMOTE_HOST", "kafka.example.net",
                    "KAFKA_TLS_DIR", dir.toString(),
                    "KAFKA_KEYSTORE_PASSWORD", "9a8b7c6d5e4f3a2b")),
            COMPOSE,
            SASL_OVERRIDE);

    // When: every port published beyond loopback
    List<String> beyondLoopback = new java.util.ArrayList<>();
    int published = 0;
    for (String service : compose.serviceNames()) {
      for (ComposeFile.PublishedPort port : compose.ports(service)) {
        published++;
        if (!port.hostIp().equals("127.0.0.1")) {
          beyondLoopback.add(service + " " + port.hostIp() + ":" + port.target());
        }
      }
    }

    // Then: the proxy (clients need it) and the SASL_SSL listener only; metrics, Prometheus,
    // MinIO's root account, PostgreSQL, vLLM and the UI stay on loopback (Connect's REST API is
    // not published at all)
    assertThat(beyondLoopback)
        .containsExactlyInAnyOrder("ingest-bridge 0.0.0.0:8088", "kafka 0.0.0.0:9095");
    assertThat(published).isEqualTo(11);
  }

  @Test
  void probePublishesNoPortOfConnectsRestApiByDefault() throws Exception {
    // Given: the default deployment, and one told to publish on every interface
    ComposeFile loopback = config(DockerCompose.deploymentEnv());
    ComposeFile bindAll = config(envFile(Map.of("PREFIXLOG_BIND_ADDRESS", "0.0.0.0")));

    // Then: the REST API runs any installed plugin for whoever reaches it, with no
    // authentication, and a page in the operator's browser that rebinds its name to 127.0.0.1
    // reaches loopback too; no host port leads to it, whatever the bind address
    for (ComposeFile compose : List.of(loopback, bindAll)) {
      assertThat(compose.ports("connect")).isEmpty();
      for (String service : compose.serviceNames()) {
        assertThat(compose.ports(service))
            .as("%s publishes Connect's REST port", service)
            .noneMatch(port -> port.target().equals("8083"));
      }
    }
  }

  @Test
  void shouldPublishConnectsRestApiOnLoopbackOnlyWhenAskedFor() throws Exception {
    // Given: the opt-in override, told to publish on every interface, on another host port
    Path env = envFile(Map.of("PREFIXLOG_BIND_ADDRESS", "0.0.0.0", "CONNECT_PORT", "18083"));

    // When
    ComposeFile compose = config(env, COMPOSE, CONNECT_REST_OVERRIDE);
    ComposeFile defaultPort = config(DockerCompose.deploymentEnv(), COMPOSE, CONNECT_REST_OVERRIDE);

    // Then: loopback whatever the bind address, and no other service's ports change
    assertThat(compose.ports("connect"))
        .containsExactly(new ComposeFile.PublishedPort("127.0.0.1", "18083", "8083"));
    assertThat(defaultPort.ports("connect"))
        .containsExactly(new ComposeFile.PublishedPort("127.0.0.1", "8083", "8083"));
    ComposeFile without = config(env);
    assertThat(compose.serviceNames()).isEqualTo(without.serviceNames());
    for (String service : without.serviceNames()) {
      if (!service.equals("connect")) {
        assertThat(compose.ports(service)).as(service).isEqualTo(without.ports(service));
      }
    }
  }

  @Test
  void shouldKeepTheConnectorsSecretsInTheWorkerOnly() throws Exception {
    // Given
    Map<String, String> env = read(DockerCompose.deploymentEnv());
    ComposeFile compose = config(DockerCompose.deploymentEnv());
    java.util.Properties worker = new java.util.Properties();
    try (var in =
        Files.newInputStream(ROOT.resolve("deploy/connect/connect-distributed.properties"))) {
      worker.load(in);
    }

    // Then: connect-init registers references, which the worker resolves from its environment
    // (config prints compose's escaped $$; the container gets ${env:…}, as the smoke test sees)
    assertThat(compose.environment("connect-init", "CATALOG_PASSWORD"))
        .hasValue("$${env:CATALOG_PASSWORD}");
    assertThat(compose.environment("connect-init", "S3_SECRET_KEY"))
        .hasValue("$${env:S3_SECRET_KEY}");
    assertThat(compose.environment("connect", "CATALOG_PASSWORD"))
        .hasValue(env.get("POSTGRES_PASSWORD"));
    assertThat(compose.environment("connect", "S3_SECRET_KEY"))
        .hasValue(env.get("MINIO_SINK_PASSWORD"));
    assertThat(worker.getProperty("config.providers")).isEqualTo("env");
    assertThat(worker.getProperty("config.providers.env.class"))
        .isEqualTo("org.apache.kafka.common.config.provider.EnvVarConfigProvider");
    assertThat("CATALOG_PASSWORD")
        .matches(worker.getProperty("config.providers.env.param.allowlist.pattern"));
    assertThat("KAFKA_HEAP_OPTS")
        .doesNotMatch(worker.getProperty("config.providers.env.param.allowlist.pattern"));
    // catalog-init opens the catalog itself, with the secrets (no REST API in between)
    assertThat(compose.environment("catalog-init", "CATALOG_PASSWORD"))
        .hasValue(env.get("POSTGRES_PASSWORD"));
  }

  @Test
  void shouldTruncateClientAddressesAndGiveTheEngineAKey() throws Exception {
    ComposeFile compose = config(DockerCompose.deploymentEnv());

    assertThat(compose.environment("ingest-bridge", "PREFIXLOG_CLIENT_ADDR")).hasValue("truncate");
    List<String> vllm = compose.commandLines("vllm");
    assertThat(vllm).contains("--api-key");
    assertThat(vllm.get(vllm.indexOf("--api-key") + 1))
        .isEqualTo(read(DockerCompose.deploymentEnv()).get("VLLM_API_KEY"));
  }

  @Test
  void shouldGiveTheBridgeASecretItAccepts() throws Exception {
    // Given: compose's rendered environment of the bridge with the generated secret
    Map<String, String> env = bridgeEnvironment(config(DockerCompose.deploymentEnv()));

    // Then: the bridge listens on 0.0.0.0 in its container, and its configuration takes it
    assertThat(env).containsEntry("PREFIXLOG_PROXY_HOST", "0.0.0.0");
    assertThatCode(() -> ProxyConfig.fromSettings(Settings.of(env))).doesNotThrowAnyException();
  }

  static Map<String, String> bridgeEnvironment(ComposeFile compose) {
    Map<String, String> env = new LinkedHashMap<>();
    if (compose.service("ingest-bridge").get("environment") instanceof Map<?, ?> map) {
      map.forEach((k, v) -> env.put(String.valueOf(k), v == null ? "" : String.valueOf(v)));
    }
    return env;
  }

  @Test
  void shouldWriteRandomSecretsOnceAndKeepThem() throws Exception {
    // Given: an env file copied from an example, one secret left empty, one setting of the user's
    Path file = dir.resolve(".env");
    Files.writeString(file, "PREFIXLOG_BIND_ADDRESS=10.0.0.4\nPOSTGRES_PASSWORD=\n");

    // When
    ComposeEnvScript.Run first = ComposeEnvScript.run(file);
    Map<String, String> written = read(file);
    ComposeEnvScript.Run second = ComposeEnvScript.run(file);

    // Then: every secret random (64 hex digits, not a placeholder), the file private
    assertThat(first.exitCode()).as(first.output()).isZero();
    assertThat(written).containsEntry("PREFIXLOG_BIND_ADDRESS", "10.0.0.4");
    for (String secret : DockerCompose.COMPOSE_SECRETS) {
      assertThat(written.get(secret)).as(secret).matches("[0-9a-f]{64}");
      assertThat(UnsafeDefaults.isPlaceholder(written.get(secret))).isFalse();
    }
    assertThat(Files.readAllLines(file))
        .filteredOn(l -> l.startsWith("POSTGRES_PASSWORD="))
        .hasSize(1);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    // and a second run changes nothing: data is written with these secrets
    assertThat(second.exitCode()).isZero();
    assertThat(second.output()).contains("nothing changed");
    assertThat(read(file)).isEqualTo(written);
    // Another deployment gets other secrets.
    Path other = dir.resolve("other.env");
    ComposeEnvScript.run(other);
    assertThat(read(other).get("PREFIXLOG_SESSION_SECRET"))
        .isNotEqualTo(written.get("PREFIXLOG_SESSION_SECRET"));
  }

  @Test
  void shouldOpenKafkaBeyondLoopbackOnlyThroughSaslSsl() throws Exception {
    // Given: the documented override without its own secrets
    DockerCompose.Result missing =
        configResult(DockerCompose.deploymentEnv(), COMPOSE, SASL_OVERRIDE);
    assertThat(missing.exitCode()).isNotZero();

    // When: with them, told to publish beyond loopback
    ComposeFile compose =
        config(
            envFile(
                Map.of(
                    "PREFIXLOG_BIND_ADDRESS", "0.0.0.0",
                    "KAFKA_REMOTE_HOST", "kafka.example.net",
                    "KAFKA_TLS_DIR", dir.toString(),
                    "KAFKA_KEYSTORE_PASSWORD", "9a8b7c6d5e4f3a2b")),
            COMPOSE,
            SASL_OVERRIDE);

    // Then: the REMOTE listener is SASL_SSL and the only Kafka port beyond loopback
    assertThat(compose.environment("kafka", "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP").orElseThrow())
        .contains("REMOTE:SASL_SSL")
        .contains("INTERNAL:SASL_PLAINTEXT")
        .contains("EXTERNAL:SASL_PLAINTEXT")
        .contains("CONTROLLER:PLAINTEXT");
    // the controller listener, whose principal is unauthenticated, answers inside kafka only
    assertThat(compose.environment("kafka", "KAFKA_LISTENERS").orElseThrow())
        .contains("CONTROLLER://127.0.0.1:9093");
    assertThat(compose.environment("kafka", "KAFKA_ADVERTISED_LISTENERS").orElseThrow())
        .contains("REMOTE://kafka.example.net:9095");
    assertThat(compose.ports("kafka"))
        .containsExactlyInAnyOrder(
            new ComposeFile.PublishedPort("127.0.0.1", "9094", "9094"),
            new ComposeFile.PublishedPort("0.0.0.0", "9095", "9095"));
  }

  @Test
  void probeGivesMinioRootKeyToNoServiceButMinioAndItsInit() throws Exception {
    // Given: the deployment as rendered with its .env
    ComposeFile compose = config(DockerCompose.deploymentEnv());
    Map<String, String> secrets = read(DockerCompose.deploymentEnv());

    // When: every service whose environment holds each S3 secret
    Map<String, List<String>> holders = new java.util.TreeMap<>();
    for (String secret :
        List.of("MINIO_ROOT_PASSWORD", "MINIO_SINK_PASSWORD", "MINIO_MAINTENANCE_PASSWORD")) {
      for (String service : compose.serviceNames()) {
        if (compose.service(service).get("environment") instanceof Map<?, ?> environment
            && environment.containsValue(secrets.get(secret))) {
          holders.computeIfAbsent(secret, s -> new java.util.ArrayList<>()).add(service);
        }
      }
    }

    // Then: the root key with MinIO and minio-init only; the sink's with the archive's writers;
    // the maintenance key with maintenance; minio-init makes both users
    assertThat(holders)
        .containsEntry("MINIO_ROOT_PASSWORD", List.of("minio", "minio-init"))
        .containsEntry("MINIO_SINK_PASSWORD", List.of("catalog-init", "connect", "minio-init"))
        .containsEntry("MINIO_MAINTENANCE_PASSWORD", List.of("archive-maintenance", "minio-init"));
    assertThat(compose.environment("catalog-init", "S3_ACCESS_KEY")).hasValue("archive-sink");
    assertThat(compose.environment("archive-maintenance", "PREFIXLOG_S3_ACCESS_KEY"))
        .hasValue("archive-maintenance");
    assertThat(
            java.util.stream.Stream.of(
                    "MINIO_ROOT_PASSWORD", "MINIO_SINK_PASSWORD", "MINIO_MAINTENANCE_PASSWORD")
                .map(secrets::get)
                .distinct())
        .hasSize(3);
  }

  @Test
  void shouldLetTheSinksS3UserDeleteNothing() throws Exception {
    // Given: the policies minio-init gives the two users
    String script = Files.readString(ROOT.resolve("deploy/minio/minio-init.sh"));
    Matcher policies =
        Pattern.compile("policy (prefixlog-archive-\\w+) \\\\\n\\s*'([^']*)'").matcher(script);
    Map<String, String> objectActions = new java.util.TreeMap<>();
    while (policies.find()) {
      objectActions.put(policies.group(1), policies.group(2));
    }

    // Then: both read and write; only maintenance deletes
    assertThat(objectActions)
        .containsOnlyKeys("prefixlog-archive-sink", "prefixlog-archive-maintenance");
    assertThat(objectActions.get("prefixlog-archive-sink"))
        .contains("\"s3:GetObject\"", "\"s3:PutObject\"")
        .doesNotContain("Delete", "s3:*");
    assertThat(objectActions.get("prefixlog-archive-maintenance"))
        .contains("\"s3:GetObject\"", "\"s3:PutObject\"", "\"s3:DeleteObject\"");
    assertThat(script)
        .contains(
            "mc admin policy attach archive prefixlog-archive-sink --user \"$MINIO_SINK_USER\"")
        .contains(
            "mc admin policy attach archive prefixlog-archive-maintenance"
                + " --user \"$MINIO_MAINTENANCE_USER\"");
  }

  @Test
  void shouldGiveEveryKafkaClientItsOwnUserAndDenyWhatNoAclAllows() throws Exception {
    // Given: the deployment as rendered with its .env
    ComposeFile compose = config(DockerCompose.deploymentEnv());
    Map<String, String> passwords = read(DockerCompose.deploymentEnv());

    // Then: the broker authenticates every listener a client reaches and denies by default
    assertThat(compose.environment("kafka", "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP").orElseThrow())
        .isEqualTo("CONTROLLER:PLAINTEXT,INTERNAL:SASL_PLAINTEXT,EXTERNAL:SASL_PLAINTEXT");
    assertThat(compose.environment("kafka", "KAFKA_LISTENERS").orElseThrow())
        .contains("CONTROLLER://127.0.0.1:9093");
    assertThat(compose.environment("kafka", "KAFKA_AUTHORIZER_CLASS_NAME"))
        .hasValue("org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    assertThat(compose.environment("kafka", "KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND"))
        .hasValue("false");
    assertThat(compose.environment("kafka", "KAFKA_SUPER_USERS"))
        .hasValue("User:admin;User:ANONYMOUS");
    // each component logs in as its own user with its own password
    Map<String, String> users =
        Map.of("stream-app", "streams", "ingest-bridge", "bridge", "ui", "ui");
    users.forEach(
        (service, user) -> {
          assertThat(compose.environment(service, "PREFIXLOG_KAFKA_SECURITY_PROTOCOL"))
              .as(service)
              .hasValue("SASL_PLAINTEXT");
          String password =
              passwords.get("KAFKA_" + user.toUpperCase(java.util.Locale.ROOT) + "_PASSWORD");
          assertThat(compose.environment(service, "PREFIXLOG_KAFKA_SASL_JAAS_CONFIG").orElseThrow())
              .as(service)
              .contains("username=\"" + user + "\"")
              .contains("password=\"" + password + "\"");
        });
    // the model server and the demo engine have no user at all
    for (String service : List.of("vllm", "demo-engine")) {
      assertThat(compose.environment(service, "PREFIXLOG_KAFKA_SASL_JAAS_CONFIG"))
          .as(service)
          .isEmpty();
    }
    // and the users' passwords differ
    assertThat(
            java.util.stream.Stream.of("ADMIN", "BRIDGE", "STREAMS", "UI", "CONNECT")
                .map(u -> passwords.get("KAFKA_" + u + "_PASSWORD"))
                .distinct())
        .hasSize(5);
  }
}
