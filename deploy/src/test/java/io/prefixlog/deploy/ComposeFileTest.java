package io.prefixlog.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.bridge.proxy.AotTraining;
import io.prefixlog.schemas.RecordLimits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The root docker-compose.yml, checked without a Docker engine: {@code docker-compose config}
 * accepts it, every image is built here or pinned, the stream app can be scaled, and the README's
 * compose commands name what the file has.
 */
class ComposeFileTest {
  private static final Path ROOT = Repository.root();
  private static final Path COMPOSE = ROOT.resolve(Repository.COMPOSE_FILE);

  @Test
  void shouldBeAcceptedByDockerComposeConfigWithEveryProfile() throws Exception {
    // Given
    DockerCompose compose = DockerCompose.require();

    // When
    DockerCompose.Result config = compose.run(ROOT, "-f", COMPOSE.toString(), "config");
    DockerCompose.Result services =
        compose.run(ROOT, "-f", COMPOSE.toString(), "config", "--services");
    DockerCompose.Result profiles =
        compose.run(ROOT, "-f", COMPOSE.toString(), "config", "--profiles");

    // Then
    assertThat(config.exitCode()).as("docker-compose config:\n%s", config.stderr()).isZero();
    ComposeFile normalized = ComposeFile.parse(config.stdout());
    assertThat(normalized.serviceNames())
        .containsExactlyInAnyOrder(
            "kafka",
            "kafka-init",
            "stream-app",
            "ingest-bridge",
            "minio",
            "minio-init",
            "postgres",
            "catalog-init",
            "connect",
            "connect-init",
            "prometheus",
            "demo-engine",
            "ui",
            "archive-maintenance",
            "vllm");
    assertThat(normalized.imageProblems()).isEmpty();
    assertThat(services.stdout().lines().toList())
        .containsExactlyInAnyOrderElementsOf(normalized.serviceNames());
    assertThat(profiles.stdout().lines().toList()).containsExactlyInAnyOrder("demo", "gpu");
  }

  @Test
  void shouldFindDockerComposeOnlyWhereItIs(@TempDir Path empty) {
    assertThat(DockerCompose.onPath(empty.toString())).isEmpty();
    assertThat(DockerCompose.onPath(null)).isEmpty();
  }

  @Test
  void shouldBuildOrPinEveryImage() throws Exception {
    // Given
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));

    // When
    List<String> problems = file.imageProblems();

    // Then
    assertThat(problems).isEmpty();
    assertThat(file.serviceNames().stream().filter(file::builds))
        .containsExactlyInAnyOrder(
            "stream-app", "ingest-bridge", "demo-engine", "ui", "archive-maintenance");
    assertThat(file.image("stream-app")).hasValue("prefixlog/stream-app:0.1.0-SNAPSHOT");
    assertThat(file.image("ingest-bridge")).hasValue("prefixlog/ingest-bridge:0.1.0-SNAPSHOT");
    // The demo engine has an image of its own: it is not in the bridge's jar.
    assertThat(file.image("demo-engine")).hasValue("prefixlog/demo-engine:0.1.0-SNAPSHOT");
    // The session explorer runs from the tools module, which holds prefixlog ui.
    assertThat(file.image("ui")).hasValue("prefixlog/tools:0.1.0-SNAPSHOT");
    // So does the archive's maintenance (prefixlog archive maintain): the same image.
    assertThat(file.image("archive-maintenance")).hasValue("prefixlog/tools:0.1.0-SNAPSHOT");
    assertThat(file.image("kafka")).hasValue("apache/kafka:4.3.1");
    assertThat(file.image("connect")).hasValue("apache/kafka:4.3.1");
  }

  @Test
  void shouldTrainAnAotCacheForTheBridgeImageOnly() throws Exception {
    // Given
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));

    // When
    var bridge = file.buildArg("ingest-bridge", "AOT_TRAINING");

    // Then: the class the Dockerfile runs to train the cache (a rename fails to compile here);
    // the other images run without a cache
    assertThat(bridge).hasValue(AotTraining.class.getName());
    assertThat(file.buildArg("stream-app", "AOT_TRAINING")).isEmpty();
    assertThat(file.buildArg("ui", "AOT_TRAINING")).isEmpty();
    assertThat(file.buildArg("demo-engine", "AOT_TRAINING")).isEmpty();
  }

  @Test
  void shouldTrainTheBridgesAotCacheOnTheCollectorAndHeapItRunsWith() throws Exception {
    // Given
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));
    Matcher javaOpts =
        Pattern.compile("\\$\\{BRIDGE_JAVA_OPTS:-(.*)}")
            .matcher(file.environment("ingest-bridge", "JAVA_OPTS").orElseThrow());
    assertThat(javaOpts.matches()).as("JAVA_OPTS: ${BRIDGE_JAVA_OPTS:-...}").isTrue();
    String run = javaOpts.group(1);
    Matcher limit =
        Pattern.compile("\\$\\{BRIDGE_MEMORY_LIMIT:-(\\d+)g}")
            .matcher(file.service("ingest-bridge").get("mem_limit").toString());
    assertThat(limit.matches()).as("mem_limit: ${BRIDGE_MEMORY_LIMIT:-<n>g}").isTrue();

    // When
    String training = file.buildArg("ingest-bridge", "AOT_TRAINING_OPTS").orElseThrow();

    // Then: the same collector and young share; the fixed heap is the run's percentage of the
    // default limit, so the cache's compressed-oop layout is the run's
    assertThat(flags(training, "-XX:\\+Use\\w+GC")).isEqualTo(flags(run, "-XX:\\+Use\\w+GC"));
    assertThat(flags(training, "-XX:NewRatio=\\d+")).isEqualTo(flags(run, "-XX:NewRatio=\\d+"));
    List<String> percent = flags(run, "-XX:MaxRAMPercentage=\\d+");
    assertThat(percent).hasSize(1);
    long heapMiB =
        Long.parseLong(limit.group(1))
            * 1024
            * Long.parseLong(percent.get(0).substring(percent.get(0).indexOf('=') + 1))
            / 100;
    assertThat(flags(training, "-Xm[sx]\\d+m"))
        .containsExactly("-Xms" + heapMiB + "m", "-Xmx" + heapMiB + "m");
  }

  private static List<String> flags(String options, String pattern) {
    return List.of(options.split(" ")).stream().filter(f -> f.matches(pattern)).toList();
  }

  @Test
  void shouldStartTheBridgesJvmWithTheImagesAotCacheUnderComposesJavaOpts(@TempDir Path dir)
      throws Exception {
    // Given: the Dockerfile's entry point, run by sh as the container runs it, with a `java` that
    // prints its arguments, in the bridge container's environment: the image's JAVA_AOT_CACHE and
    // PREFIXLOG_MAIN_CLASS, and compose's JAVA_OPTS (BRIDGE_JAVA_OPTS's default), which replaces
    // the image's JAVA_OPTS
    String dockerfile =
        Files.readString(ROOT.resolve("deploy/docker/Dockerfile"), StandardCharsets.UTF_8);
    Matcher cache =
        Pattern.compile("JAVA_AOT_CACHE=\\$\\{AOT_TRAINING:\\+([^}]+)}").matcher(dockerfile);
    assertThat(cache.find()).as("JAVA_AOT_CACHE set from AOT_TRAINING in the Dockerfile").isTrue();
    Matcher entrypoint = Pattern.compile("(?m)^ENTRYPOINT (\\[.*])$").matcher(dockerfile);
    assertThat(entrypoint.find()).as("the Dockerfile's ENTRYPOINT").isTrue();
    List<String> command = new ArrayList<>();
    for (Object word :
        (List<?>) new Yaml(new SafeConstructor(new LoaderOptions())).load(entrypoint.group(1))) {
      command.add((String) word);
    }
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));
    Matcher javaOpts =
        Pattern.compile("\\$\\{BRIDGE_JAVA_OPTS:-(.*)}")
            .matcher(file.environment("ingest-bridge", "JAVA_OPTS").orElseThrow());
    assertThat(javaOpts.matches()).as("JAVA_OPTS: ${BRIDGE_JAVA_OPTS:-...}").isTrue();
    Path java = dir.resolve("java");
    Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
    assertThat(java.toFile().setExecutable(true)).isTrue();
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().put("PATH", dir + ":/usr/bin:/bin");
    builder.environment().put("JAVA_OPTS", javaOpts.group(1));
    builder.environment().put("JAVA_AOT_CACHE", cache.group(1));
    builder
        .environment()
        .put("PREFIXLOG_MAIN_CLASS", file.buildArg("ingest-bridge", "MAIN_CLASS").orElseThrow());

    // When
    Process process = builder.start();
    List<String> args =
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
            .lines()
            .toList();

    // Then: compose's flags (the thread priorities among them), then the cache, then the class
    // path and main; compose sets no JAVA_AOT_CACHE of its own
    assertThat(process.waitFor()).isZero();
    List<String> expected = new ArrayList<>(List.of(javaOpts.group(1).split(" ")));
    expected.addAll(
        List.of(
            "-XX:AOTCache=/app/app.aot", "-cp", "/app/lib/*", "io.prefixlog.bridge.BridgeMain"));
    assertThat(args).containsExactlyElementsOf(expected);
    assertThat(args).contains("-XX:ThreadPriorityPolicy=1", "-XX:CompilerThreadPriority=9");
    assertThat(file.environment("ingest-bridge", "JAVA_AOT_CACHE")).isEmpty();
  }

  @Test
  void shouldPinTheBaseImageOfTheProjectsOwnImages() throws Exception {
    // Given
    List<String> lines = Files.readAllLines(ROOT.resolve("deploy/docker/Dockerfile"));

    // When
    List<String> bases =
        lines.stream()
            .map(String::strip)
            .filter(l -> l.regionMatches(true, 0, "FROM ", 0, 5))
            .map(l -> l.substring(5).strip().split("\\s+")[0])
            .toList();

    // Then
    assertThat(bases).containsExactly("eclipse-temurin:25.0.1_8-jre-noble");
    assertThat(bases).allSatisfy(b -> assertThat(ImagePolicy.problem(b)).isEmpty());
  }

  @Test
  void shouldLetTheBrokerTakeTheLargestRecordTheAppsWrite() throws Exception {
    // Given
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));

    // When
    var brokerLimit = file.environment("kafka", "KAFKA_MESSAGE_MAX_BYTES");

    // Then: the limit of the topics and clients for the default body limit, which the apps here
    // keep (the stream app checks the broker at start when it is given a larger one)
    assertThat(brokerLimit).hasValue(Long.toString(RecordLimits.DEFAULT_MAX_RECORD_BYTES));
    assertThat(file.environment("stream-app", "PREFIXLOG_MAX_BODY_BYTES")).isEmpty();
    assertThat(file.environment("ingest-bridge", "PREFIXLOG_MAX_BODY_BYTES")).isEmpty();
  }

  @Test
  void shouldLetTheStreamAppScaleWithOneApplicationIdAndAStateDirectoryPerContainer()
      throws Exception {
    // Given
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));

    // When
    var streamApp = file.service("stream-app");

    // Then: nothing that two containers of one service could not share
    assertThat(streamApp).doesNotContainKeys("container_name", "ports", "hostname");
    assertThat(file.environment("stream-app", "PREFIXLOG_APPLICATION_ID"))
        .hasValue("${PREFIXLOG_APPLICATION_ID:-prefixlog-stream-app}");
    assertThat(file.environment("stream-app", "PREFIXLOG_STATE_DIR"))
        .hasValue("/var/lib/prefixlog/streams");
    // An anonymous volume (no name, no host path) is created per container.
    assertThat(streamApp.get("volumes")).isEqualTo(List.of("/var/lib/prefixlog"));
    assertThat(file.environment("stream-app", "PREFIXLOG_STANDBY_REPLICAS"))
        .hasValue("${PREFIXLOG_STANDBY_REPLICAS:-0}");
    assertThat(file.buildArg("stream-app", "MAIN_CLASS"))
        .hasValue("io.prefixlog.streams.StreamApp");
    assertThat(file.profiles("vllm")).containsExactly("gpu");
  }

  @Test
  void shouldPrepareTheArchiveTablesBeforeAnyConnectorStarts() throws Exception {
    // Given
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));

    // When
    var catalogInit = file.dependsOn("catalog-init");
    var connect = file.dependsOn("connect");
    var connectInit = file.dependsOn("connect-init");

    // Then: the catalog and the bucket first, then the tables, then the worker and its connectors
    // (connectors registered by an earlier run start with the worker).
    assertThat(catalogInit)
        .containsEntry("postgres", "service_healthy")
        .containsEntry("minio-init", "service_completed_successfully");
    assertThat(connect).containsEntry("catalog-init", "service_completed_successfully");
    assertThat(connectInit)
        .containsEntry("catalog-init", "service_completed_successfully")
        .containsEntry("connect", "service_healthy");
    assertThat(file.service("catalog-init").get("entrypoint"))
        .isEqualTo(List.of("/bin/sh", "/etc/prefixlog/prepare-catalog.sh"));
    assertThat(file.hostPath("catalog-init", "/etc/prefixlog/prepare-catalog.sh", ROOT))
        .hasValue(ROOT.resolve("deploy/connect/prepare-catalog.sh"));
    // The Kafka image: a JRE, and the SLF4J API and kafka-clients jars the plugin directory leaves
    // to the worker.
    assertThat(file.image("catalog-init")).isEqualTo(file.image("connect"));
    assertThat(file.environment("catalog-init", "SLF4J_DIR")).hasValue("/opt/kafka/libs");
  }

  @Test
  void shouldOpenOneCatalogForTheTablesAndTheConnectors() throws Exception {
    // Given
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));

    // When / Then: the same catalog, warehouse, S3 and topic settings in both one-shot steps;
    // the connectors' two secrets are the worker's, which resolves connect-init's references
    for (String name :
        List.of(
            "TOPIC_PREFIX",
            "CATALOG_URI",
            "CATALOG_USER",
            "WAREHOUSE",
            "S3_ENDPOINT",
            "S3_PATH_STYLE_ACCESS",
            "S3_ACCESS_KEY",
            "S3_REGION")) {
      assertThat(file.environment("catalog-init", name))
          .as(name)
          .isPresent()
          .isEqualTo(file.environment("connect-init", name));
    }
    for (String secret : List.of("CATALOG_PASSWORD", "S3_SECRET_KEY")) {
      assertThat(file.environment("catalog-init", secret))
          .as(secret)
          .isPresent()
          .isEqualTo(file.environment("connect", secret));
      assertThat(file.environment("connect-init", secret)).hasValue("$${env:" + secret + "}");
    }
    assertThat(file.environment("catalog-init", "CATALOG_URI"))
        .hasValueSatisfying(uri -> assertThat(uri).startsWith("jdbc:postgresql://postgres:5432/"));
    // PrepareCatalog creates the tables in ArchivedTopic.NAMESPACE; the connectors write there.
    assertThat(file.environment("connect-init", "ARCHIVE_NAMESPACE"))
        .hasValue(ArchivedTopic.NAMESPACE);
  }

  @Test
  void shouldCreateTheControlTopicOfEveryArchivedTopic() throws Exception {
    // Given: kafka-init's script creates one control topic per connector id, in a shell loop (the
    // Kafka image runs it, without the prefixlog jar)
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));
    assertThat(String.valueOf(file.service("kafka-init").get("volumes")))
        .contains("./deploy/kafka/kafka-init.sh:/etc/prefixlog/kafka-init.sh:ro");
    String command =
        Files.readString(
            COMPOSE.resolveSibling("deploy/kafka/kafka-init.sh"), StandardCharsets.UTF_8);

    // When
    Matcher loop = Pattern.compile("for id in ([a-z0-9 -]+); do").matcher(command);

    // Then: the ids are those of ArchivedTopic.all, whose control topics they name
    assertThat(loop.find()).as("kafka-init's control-topic loop:\n%s", command).isTrue();
    assertThat(command).contains("archive.control.$id");
    List<String> expected = new ArrayList<>();
    for (ArchivedTopic topic : ArchivedTopic.all("")) {
      expected.add(topic.controlTopic().substring("archive.control.".length()));
    }
    assertThat(List.of(loop.group(1).trim().split(" +"))).isEqualTo(expected);
  }

  @Test
  void shouldMaintainTheTablesOfTheCatalogAndBucketTheSinkWrites() throws Exception {
    // Given
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));

    // When
    @SuppressWarnings("unchecked")
    List<String> command = (List<String>) file.service("archive-maintenance").get("command");

    // Then: prefixlog archive maintain on a schedule, after the tables exist, on catalog-init's
    // catalog, warehouse and object store, with the same catalog credentials and its own S3 key,
    // which may delete (minio-init)
    assertThat(command.subList(0, 3)).containsExactly("archive", "maintain", "--every");
    assertThat(command.get(3)).isEqualTo("${ARCHIVE_MAINTENANCE_INTERVAL:-1h}");
    assertThat(optionValue(command, "--catalog-uri"))
        .isEqualTo(file.environment("catalog-init", "CATALOG_URI").orElseThrow());
    assertThat(optionValue(command, "--warehouse"))
        .isEqualTo(file.environment("catalog-init", "WAREHOUSE").orElseThrow());
    assertThat(optionValue(command, "--s3-endpoint"))
        .isEqualTo(file.environment("catalog-init", "S3_ENDPOINT").orElseThrow());
    for (String[] pair :
        new String[][] {
          {"PREFIXLOG_S3_REGION", "S3_REGION"},
          {"PREFIXLOG_CATALOG_USER", "CATALOG_USER"},
          {"PREFIXLOG_CATALOG_PASSWORD", "CATALOG_PASSWORD"}
        }) {
      assertThat(file.environment("archive-maintenance", pair[0]))
          .as(pair[0])
          .isPresent()
          .isEqualTo(file.environment("catalog-init", pair[1]));
    }
    assertThat(file.environment("archive-maintenance", "PREFIXLOG_S3_ACCESS_KEY"))
        .hasValue("${MINIO_MAINTENANCE_USER:-archive-maintenance}");
    assertThat(file.environment("archive-maintenance", "PREFIXLOG_S3_SECRET_KEY").orElseThrow())
        .startsWith("${MINIO_MAINTENANCE_PASSWORD:?");
    assertThat(file.dependsOn("archive-maintenance"))
        .containsEntry("catalog-init", "service_completed_successfully");
    assertThat(file.service("archive-maintenance").get("restart")).isEqualTo("unless-stopped");
  }

  private static String optionValue(List<String> command, String option) {
    int at = command.indexOf(option);
    assertThat(at).as(option).isNotNegative();
    return command.get(at + 1);
  }

  @Test
  void shouldGiveThePrepareStepAndTheWorkerTheSamePluginDirectoryAndNoExtraClassPath()
      throws Exception {
    // Given
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));

    // When
    var pluginLib = file.environment("catalog-init", "PLUGIN_LIB");

    // Then
    assertThat(pluginLib).hasValue("/opt/connect-plugins/iceberg-sink/lib");
    Path plugins = ROOT.resolve("archive/target/iceberg-sink-plugin");
    assertThat(file.hostPath("catalog-init", pluginLib.get(), ROOT))
        .hasValue(plugins.resolve("iceberg-sink/lib"));
    assertThat(file.hostPath("connect", "/opt/connect-plugins", ROOT)).hasValue(plugins);
    String worker =
        Files.readString(
            ROOT.resolve("deploy/connect/connect-distributed.properties"), StandardCharsets.UTF_8);
    assertThat(worker).contains("plugin.path=/opt/connect-plugins\n");
    // The catalog's PostgreSQL driver comes from the plugin directory, not the worker's class path.
    assertThat(file.environment("connect", "CLASSPATH")).isEmpty();
    assertThat(String.valueOf(file.service("connect").get("volumes")))
        .doesNotContain("connect-libs");
  }

  @Test
  void shouldDocumentOnlyComposeCommandsTheFileSupports() throws Exception {
    // Given
    ComposeFile file = ComposeFile.parse(Files.readString(COMPOSE, StandardCharsets.UTF_8));
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);

    // When
    List<String> commands = composeCommands(readme);

    // Then
    assertThat(commands)
        .as("the README's compose commands")
        .contains("docker compose build", "docker compose up -d")
        .anySatisfy(c -> assertThat(c).contains("--scale stream-app=3"))
        .anySatisfy(c -> assertThat(c).contains("--profile gpu"));
    Pattern scale = Pattern.compile("--scale ([\\w-]+)=");
    Pattern profile = Pattern.compile("--profile (\\w+)");
    Pattern service =
        Pattern.compile("docker compose (?:logs|exec|stop|start|restart) (?:-f )?([\\w-]+)");
    for (String command : commands) {
      for (Pattern p : List.of(scale, service)) {
        Matcher m = p.matcher(command);
        while (m.find()) {
          assertThat(file.serviceNames()).as(command).contains(m.group(1));
        }
      }
      Matcher m = profile.matcher(command);
      while (m.find()) {
        String name = m.group(1);
        assertThat(file.serviceNames().stream().flatMap(s -> file.profiles(s).stream()))
            .as(command)
            .contains(name);
      }
    }
  }

  @Test
  void shouldHaveTheWorkerCallTheSinkOftenEnoughToAnswerACommitInTime() throws Exception {
    // The Iceberg sink's workers answer the coordinator's START_COMMIT only inside put(). On an
    // idle
    // topic the Connect worker calls put() when its poll returns, at the latest after
    // offset.flush.interval.ms (60 s by default): past the commit timeout (30 s), so every commit
    // timed out with "committed to 0 table(s)" and the compose archive stayed empty (found by the
    // first real run of docker-compose.yml).
    Properties worker = new Properties();
    try (var in =
        Files.newBufferedReader(ROOT.resolve("deploy/connect/connect-distributed.properties"))) {
      worker.load(in);
    }
    Properties sink = new Properties();
    try (var in =
        Files.newBufferedReader(ROOT.resolve("archive/src/main/connect/iceberg-sink.properties"))) {
      sink.load(in);
    }
    long flush = Long.parseLong(worker.getProperty("offset.flush.interval.ms", "60000"));
    long commitTimeout =
        Long.parseLong(sink.getProperty("iceberg.control.commit.timeout-ms", "30000"));
    assertThat(flush).isLessThanOrEqualTo(commitTimeout / 4);
  }

  @Test
  void shouldDocumentEverySettingTheFileReads() throws Exception {
    // Given: the variables the compose files interpolate (not $$ escapes for the containers' shell)
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    Set<String> variables = new TreeSet<>();
    for (Path file : List.of(COMPOSE, ROOT.resolve("deploy/compose/kafka-remote-sasl-ssl.yml"))) {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (line.strip().startsWith("#")) {
          continue;
        }
        Matcher m = Pattern.compile("(?<!\\$)\\$\\{([A-Z0-9_]+)").matcher(line);
        while (m.find()) {
          variables.add(m.group(1));
        }
      }
    }

    // Then: each has a row in the README's compose settings
    assertThat(variables).contains("PREFIXLOG_SESSION_SECRET", "PREFIXLOG_BIND_ADDRESS");
    for (String variable : variables) {
      assertThat(readme.contains("`" + variable + "`"))
          .as("README documents %s", variable)
          .isTrue();
    }
  }

  /** The {@code docker compose …} lines of the README's code blocks, without trailing comments. */
  static List<String> composeCommands(String markdown) {
    List<String> commands = new ArrayList<>();
    boolean inCode = false;
    for (String line : markdown.lines().toList()) {
      String stripped = line.strip();
      if (stripped.startsWith("```")) {
        inCode = !inCode;
        continue;
      }
      if (inCode && stripped.startsWith("docker compose")) {
        int comment = stripped.indexOf(" #");
        commands.add((comment < 0 ? stripped : stripped.substring(0, comment)).strip());
      }
    }
    return commands;
  }
}
