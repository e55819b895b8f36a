package io.prefixlog.tools.smoke;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.schemas.Topics;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.archive.ArchiveEnv;
import io.prefixlog.tools.archive.ArchiveMaintainService;
import io.prefixlog.tools.archive.MaintainRequest;
import io.prefixlog.tools.erase.EraseService;
import io.prefixlog.tools.erase.ErasureRequest;
import io.prefixlog.tools.reconstruct.ReconstructRequest;
import io.prefixlog.tools.reconstruct.ReconstructService;
import io.prefixlog.tools.replay.CorpusReplayRequest;
import io.prefixlog.tools.replay.CorpusReplayService;
import io.prefixlog.tools.topic.BlockIndexView;
import io.prefixlog.tools.topic.CompactedView;
import io.prefixlog.tools.topic.KafkaClients;
import io.prefixlog.tools.topic.TopicScan;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * {@code prefixlog compose-smoke}: runs the repository's docker-compose.yml for real, on a Docker
 * engine (started when none runs and this is root), with the third-party images or their offline
 * stand-ins (deploy/standins/build), and the demo engine standing in for vLLM. Seven steps, each
 * printed with its time: up; traffic through the bridge (streamed and not, KV events); scale the
 * stream app to three and SIGKILL one while traffic flows; check one delta per request, every body
 * rebuilt from the deltas topic, the block index equal to the engine's cache, the three Iceberg
 * tables complete and the security probes ({@link SecurityProbes}) passed; erase one session
 * everywhere, the archive included; check that the scheduled archive maintenance ran and maintain
 * the archive once; stop Kafka and rebuild every kept body from the archive; down -v, nothing left.
 */
public final class ComposeSmokeCommand implements Command {
  private static final List<Option> OPTIONS =
      List.of(
          Option.value("turns", "N", "300", "Requests per traffic phase (two phases)."),
          Option.value(
              "project",
              "NAME",
              "prefixlog-smoke",
              "The compose project name (containers, volumes)."),
          Option.flag("keep", "Leave the project running at the end (and after a failure)."));

  private static final int STEPS = 8;
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration CHECK_TIMEOUT = Duration.ofMinutes(3);
  private static final Set<String> SERVICES =
      Set.of(
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
          "archive-maintenance");
  private static final String ARCHIVE_WAREHOUSE = "s3://prefixlog-archive/warehouse";

  private final Terminal terminal;
  private final HttpClient http = HttpClient.newHttpClient();
  private long started;
  private int step;
  private double uiGoneSeconds;

  public ComposeSmokeCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  /** What the command line asks for. */
  private record SmokeOptions(int turns, String projectName, boolean keep) {
    static SmokeOptions of(CommandLine line) throws UsageException {
      return new SmokeOptions(
          (int) Math.min(100_000, line.longValue("turns", 300, 10)),
          line.string("project", "prefixlog-smoke"),
          line.has("keep"));
    }
  }

  @Override
  public Spec spec() {
    return new Spec(
        "compose-smoke",
        "run docker-compose.yml for real: up, traffic, scale and kill, archive, rebuild, down",
        DESCRIPTION,
        OPTIONS);
  }

  @Override
  public int run(String[] args) {
    return invoke(args, terminal, SmokeOptions::of, this::smoke);
  }

  private int smoke(SmokeOptions options) {
    int turns = options.turns();
    String projectName = options.projectName();
    boolean keep = options.keep();
    Path root = ProjectHome.find().orElse(null);
    if (root == null) {
      terminal.err().println("prefixlog compose-smoke: run it from the prefixlog checkout");
      return USAGE;
    }
    Path work = root.resolve("var/compose-smoke");
    ComposeProject project = null;
    started = System.nanoTime();
    try {
      String noEngine = DockerEngine.ensureRunning(work.resolve("dockerd.log"));
      if (noEngine != null) {
        terminal.err().println("prefixlog compose-smoke: " + noEngine);
        return FAILED;
      }
      SmokeEnvironment env = SmokeEnvironment.write(root, work.resolve("smoke.env"));
      // The checks below run the commands as the operator does on the host: as Kafka's admin.
      KafkaClients.useVariables(env.operatorKafkaVariables());
      project = new ComposeProject(root, projectName, env.file());
      prepare(root, project);
      run(project, env, turns);
      if (!keep) {
        down(project);
      }
      report("OK", "docker-compose.yml ran every step");
      return OK;
    } catch (SmokeFailure | IOException e) {
      terminal.err().println("compose-smoke: FAILED in step " + step + ": " + e.getMessage());
      return cleanUpAfterFailure(project, keep);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      terminal.err().println("compose-smoke: interrupted");
      return cleanUpAfterFailure(project, keep);
    }
  }

  private static final String DESCRIPTION =
      "Runs the repository's docker-compose.yml on a Docker engine (dockerd is started when none"
          + " answers and this is root): builds the offline stand-ins of the third-party images"
          + " that are missing (deploy/standins/build) and the prefixlog images, then, each step"
          + " printed with its time: 1 up -d (every service healthy, every one-shot exited 0);"
          + " 2 OpenAI requests through the bridge's published port to the demo engine, streamed"
          + " and not, with its KV events; 3 --scale stream-app=3 and a SIGKILL of one while"
          + " traffic flows; 4 one delta per request, every body rebuilt from the deltas topic,"
          + " the block index equal to the engine's cache, the three Iceberg tables complete, the"
          + " session explorer (ui) refusing requests without its token and listing every session"
          + " with it, the security probes (Connect's REST API has no host port and returns no"
          + " secret inside the network, a rebound Host is refused by the UI and the bridge's"
          + " metrics); 5 erase --archive of the session with the most turns (topics, stream app,"
          + " PostgreSQL catalog, object store, gone from the UI); 6 the archive-maintenance"
          + " service's first scheduled run done on every table, then archive maintain run once"
          + " against compose's catalog and object store: no day of the deltas table left with"
          + " more than one data file, no row lost; 7 Kafka stopped, every kept body rebuilt from"
          + " the (maintained) archive; 8 down -v with no container, network or volume left. Exit"
          + " code 0 when every step passed.";

  private void prepare(Path root, ComposeProject project) throws IOException, InterruptedException {
    long t = System.nanoTime();
    Processes.Result standins =
        Processes.run(
            List.of(root.resolve("deploy/standins/build").toString()), Duration.ofMinutes(20));
    if (standins.exitCode() != 0) {
      throw new SmokeFailure("deploy/standins/build failed:\n" + standins.tail(30));
    }
    project.runOrThrow("build");
    // An earlier run that was cut off leaves its project behind: start clean.
    project.runOrThrow("down", "-v", "--remove-orphans");
    report("images", "stand-ins current, prefixlog images built", t);
  }

  private void run(ComposeProject project, SmokeEnvironment env, int turns)
      throws IOException, InterruptedException {
    String bootstrap = "127.0.0.1:" + env.port("KAFKA_EXTERNAL_PORT");
    String proxy = "http://127.0.0.1:" + env.port("BRIDGE_PROXY_PORT");
    Topics topics = Topics.withPrefix("prefixlog.");

    step = 1;
    long t = System.nanoTime();
    project.runOrThrow("up", "-d");
    // The UI last, timed on its own: what the ui service adds to the wait.
    Set<String> beforeUi = new TreeSet<>(SERVICES);
    beforeUi.remove("ui");
    project.awaitReady(beforeUi, beforeUi.size(), READY_TIMEOUT);
    long uiStarted = System.nanoTime();
    Map<String, ComposeProject.Container> up =
        project.awaitReady(SERVICES, SERVICES.size(), READY_TIMEOUT);
    report(
        "up",
        String.format(
            Locale.ROOT,
            "%d containers healthy or done (ui healthy %.1f s after the others)",
            up.size(),
            (System.nanoTime() - uiStarted) / 1e9),
        t);

    step = 2;
    t = System.nanoTime();
    replay(proxy, turns, 1, 0);
    String kvSummary = awaitEngineCache(env).size() + " blocks in the demo engine's cache";
    String nice = bridgeThreads(up);
    String aot = bridgeAotCache(up);
    report(
        "traffic",
        turns
            + " requests through "
            + proxy
            + " (half streamed); "
            + kvSummary
            + "; "
            + nice
            + "; "
            + aot,
        t);

    step = 3;
    t = System.nanoTime();
    // Spread over about 40 s, so that the scale-out and the kill fall in the middle of it.
    CompletableFuture<Void> traffic =
        CompletableFuture.runAsync(() -> replay(proxy, turns, 2, Math.max(1, turns / 40)));
    project.runOrThrow("up", "-d", "--no-recreate", "--scale", "stream-app=3");
    Map<String, ComposeProject.Container> scaled =
        project.awaitReady(Set.of("stream-app"), 3, READY_TIMEOUT);
    ComposeProject.Container victim =
        scaled.values().stream()
            .filter(c -> c.service().equals("stream-app"))
            .reduce((a, b) -> b)
            .orElseThrow();
    boolean trafficStillFlowing = !traffic.isDone();
    Processes.output(List.of("docker", "kill", "--signal", "KILL", victim.id()));
    try {
      traffic.get(10, TimeUnit.MINUTES);
    } catch (ExecutionException | TimeoutException e) {
      throw new SmokeFailure("the second traffic phase failed: " + e.getCause());
    }
    report(
        "scale+kill",
        "3 stream-app instances, "
            + victim.name()
            + " killed (SIGKILL) "
            + (trafficStillFlowing ? "while traffic flowed" : "after the traffic (it was faster)")
            + "; "
            + turns
            + " more requests answered",
        t);

    step = 4;
    t = System.nanoTime();
    long requests = 2L * turns;
    long deltas =
        awaitCount(
            () -> TopicCounts.values(bootstrap, topics.sessionDeltas().name(), false), requests);
    reconstruct(ReconstructRequest.builder().topic(bootstrap, Topics.DEFAULT_PREFIX).quiet());
    Set<String> cache = awaitEngineCache(env);
    Set<String> indexed = Set.of();
    long deadline = System.nanoTime() + CHECK_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        indexed =
            BlockIndexView.residentHashes(
                bootstrap, topics.blockIndex().name(), "prefixlog-compose-smoke", s -> true);
      } catch (TopicScan.ScanException e) {
        throw new SmokeFailure("cannot read the block index: " + e.getMessage());
      }
      if (indexed.equals(cache)) {
        break;
      }
      TimeUnit.SECONDS.sleep(2);
    }
    if (!indexed.equals(cache)) {
      throw new SmokeFailure(
          "the block index holds " + indexed.size() + " blocks, the engine " + cache.size());
    }
    long lookups = TopicCounts.values(bootstrap, topics.chunkLookups().name(), false);
    long kvEvents = TopicCounts.values(bootstrap, topics.kvEvents().name(), true);
    Map<String, Long> expected =
        Map.of(
            "prefixlog.session_deltas", deltas,
            "prefixlog.chunk_lookups", lookups,
            "prefixlog.kv_events", kvEvents);
    Map<String, Long> archived = awaitArchive(env, expected);
    // The killed instance stays down (docker kill is a manual stop for the restart policy): the
    // scrape targets are the instances running now, found through the compose network's DNS.
    long streamApps =
        project.containers().values().stream()
            .filter(c -> c.service().equals("stream-app") && c.status().equals("running"))
            .count();
    String prometheus =
        new PrometheusCheck(env.port("PROMETHEUS_PORT")).await(streamApps, requests, CHECK_TIMEOUT);
    String ui =
        checkUi(env, bootstrap, topics)
            + "; "
            + new SecurityProbes(env, project).run()
            + "; "
            + new KafkaAclProbes(env, bootstrap, "prefixlog.").run();
    report(
        "check",
        String.format(
            Locale.ROOT,
            "%d deltas for %d requests, all rebuilt from the topic; block index = engine cache"
                + " (%d blocks); archive rows %s; %s; %s",
            deltas,
            requests,
            cache.size(),
            archived,
            prometheus,
            ui),
        t);

    step = 5;
    t = System.nanoTime();
    long kept = erase(env, bootstrap, topics, deltas);
    report(
        "erase",
        String.format(
            Locale.ROOT,
            "the session with the most turns erased (gone from the UI %.1f s after the archive);"
                + " %d turns kept",
            uiGoneSeconds,
            kept),
        t);

    step = 6;
    t = System.nanoTime();
    String maintained = maintain(project, env, kept);
    report("maintain", maintained, t);

    step = 7;
    t = System.nanoTime();
    project.runOrThrow("stop", "kafka");
    reconstruct(ReconstructRequest.builder().archive(archiveSettings(env)).quiet());
    report("archive rebuild", "Kafka stopped; " + kept + " bodies rebuilt from the archive", t);
  }

  /** The bridge's threads after traffic: capture and JIT threads below the event loops. */
  private static String bridgeThreads(Map<String, ComposeProject.Container> up)
      throws IOException, InterruptedException {
    List<ThreadNiceCheck.KernelThread> threads = ThreadNiceCheck.threads(bridge(up).id());
    List<String> problems = ThreadNiceCheck.problems(threads);
    if (!problems.isEmpty()) {
      throw new SmokeFailure(
          "the bridge's thread priorities (JAVA_OPTS, PREFIXLOG_PROXY_CAPTURE_PRIORITY): "
              + String.join("; ", problems));
    }
    return ThreadNiceCheck.summary(threads);
  }

  /**
   * The bridge's JVM runs with the image's AOT cache: compose's JAVA_OPTS (BRIDGE_JAVA_OPTS)
   * replaces the image's, and a flag the cache was not trained with would make the JVM drop the
   * cache with no more than a warning.
   */
  private static String bridgeAotCache(Map<String, ComposeProject.Container> up)
      throws IOException, InterruptedException {
    String output = AotCacheCheck.read(bridge(up).id());
    Optional<String> problem = AotCacheCheck.problem(output);
    if (problem.isPresent()) {
      throw new SmokeFailure("the bridge's AOT cache: " + problem.get());
    }
    return "AOT cache " + AotCacheCheck.path(output) + " mapped";
  }

  private static ComposeProject.Container bridge(Map<String, ComposeProject.Container> up) {
    return up.values().stream()
        .filter(c -> c.service().equals("ingest-bridge"))
        .findFirst()
        .orElseThrow(() -> new SmokeFailure("no ingest-bridge container"));
  }

  private void down(ComposeProject project) throws IOException, InterruptedException {
    step = STEPS;
    long t = System.nanoTime();
    project.runOrThrow("down", "-v", "--remove-orphans");
    List<String> left = project.leftovers();
    if (!left.isEmpty()) {
      throw new SmokeFailure("down -v left " + left);
    }
    report("down", "no container, network or volume of " + project.name() + " left", t);
  }

  private int cleanUpAfterFailure(ComposeProject project, boolean keep) {
    if (project == null) {
      return FAILED;
    }
    try {
      terminal.err().println(project.run("ps").output());
      if (keep) {
        terminal
            .err()
            .println("compose-smoke: --keep: project " + project.name() + " left running");
      } else {
        project.run("down", "-v", "--remove-orphans");
      }
    } catch (IOException e) {
      terminal.err().println("compose-smoke: cannot clean up: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return FAILED;
  }

  private static void replay(String proxy, int turns, int seed, int rate) {
    Captured captured = new Captured();
    captured.check(
        "replay --via-proxy " + proxy,
        new CorpusReplayService(captured.terminal)
            .run(
                CorpusReplayRequest.builder()
                    .viaProxy(URI.create(proxy), 8, 0.5)
                    .turns(turns)
                    .seed(seed)
                    .rate(rate)
                    .build())
            .outcome());
  }

  private static void reconstruct(ReconstructRequest.Builder request) {
    Captured captured = new Captured();
    ReconstructRequest built = request.build();
    captured.check(
        "reconstruct "
            + (built.archive() != null ? "from the archive" : "from " + built.bootstrap()),
        new ReconstructService(captured.terminal).run(built).outcome());
  }

  /**
   * A prefixlog service run in this JVM, its output kept for a failure report. The deployment's
   * credentials (from the smoke test's env file, never a command line) are in the requests' archive
   * settings, so the terminal carries no environment.
   */
  private static final class Captured {
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private final Terminal terminal;

    Captured() {
      PrintStream print = new PrintStream(output, true, StandardCharsets.UTF_8);
      this.terminal = new Terminal(print, print, Map.of(), false);
    }

    /** Throws when the service run named {@code what} did not end {@link Outcome#DONE}. */
    void check(String what, Outcome outcome) {
      if (outcome != Outcome.DONE) {
        throw new SmokeFailure(
            what
                + " failed (exit "
                + outcome.exitCode()
                + "):\n"
                + output.toString(StandardCharsets.UTF_8));
      }
    }
  }

  /**
   * Erases the session with the most turns (issue: erasure on compose's PostgreSQL catalog), then
   * checks that the deltas topic's latest values and the archive no longer hold it.
   *
   * @return the turns kept
   */
  private long erase(SmokeEnvironment env, String bootstrap, Topics topics, long deltas)
      throws IOException, InterruptedException {
    Map<String, Long> turns = turnsBySession(bootstrap, topics);
    String session =
        turns.entrySet().stream()
            .max(
                Map.Entry.<String, Long>comparingByValue()
                    .thenComparing(Map.Entry.comparingByKey()))
            .orElseThrow(() -> new SmokeFailure("no session in the deltas topic"))
            .getKey();
    long kept = deltas - turns.get(session);
    Captured captured = new Captured();
    captured.check(
        "erase --session " + session,
        new EraseService(captured.terminal)
            .run(
                ErasureRequest.builder()
                    .sessions(List.of(session))
                    .topic(bootstrap, Topics.DEFAULT_PREFIX)
                    .archive(archiveSettings(env))
                    .build())
            .outcome());
    long left =
        latestKeys(bootstrap, topics.sessionDeltas().name()).stream()
            .filter(k -> k.startsWith(session + "/"))
            .count();
    if (left != 0) {
      throw new SmokeFailure(left + " deltas of the erased session are still the latest values");
    }
    awaitArchive(env, Map.of("prefixlog.session_deltas", kept));
    long uiStarted = System.nanoTime();
    ui(env).awaitGone(session, turns.size() - 1, CHECK_TIMEOUT);
    uiGoneSeconds = (System.nanoTime() - uiStarted) / 1e9;
    return kept;
  }

  /**
   * The scheduled maintenance (the archive-maintenance service runs at start, then hourly) has
   * finished a run on every table; then one run of {@code archive maintain} from here, as an
   * operator would start it, compacts what the traffic committed: afterwards no day of the deltas
   * table holds more than one data file (every file of this traffic is small) and every kept turn
   * is still there (the next step rebuilds each from the archive).
   */
  private String maintain(ComposeProject project, SmokeEnvironment env, long kept)
      throws IOException, InterruptedException {
    String scheduled = "";
    long deadline = System.nanoTime() + CHECK_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      scheduled =
          project
              .logs("archive-maintenance", 400)
              .lines()
              .filter(l -> l.contains("archive maintain: run 1 done"))
              .findFirst()
              .orElse("");
      if (!scheduled.isEmpty()) {
        break;
      }
      TimeUnit.SECONDS.sleep(2);
    }
    if (!scheduled.contains(": 4 of 4 tables maintained")) {
      throw new SmokeFailure(
          "the archive-maintenance service's first run "
              + (scheduled.isEmpty() ? "did not finish" : "failed: " + scheduled)
              + ":\n"
              + project.logs("archive-maintenance", 40));
    }
    String deltas = "prefixlog.session_deltas";
    ArchiveSettings settings = archiveSettings(env);
    Map<String, Integer> before = filesPerDay(settings, deltas);
    Captured captured = new Captured();
    captured.check(
        "archive maintain",
        new ArchiveMaintainService(captured.terminal)
            .run(MaintainRequest.once(settings))
            .outcome());
    Map<String, Integer> after = filesPerDay(settings, deltas);
    if (after.values().stream().anyMatch(files -> files > 1)) {
      throw new SmokeFailure(
          "after archive maintain, data files of " + deltas + " per day: " + after);
    }
    awaitArchive(env, Map.of(deltas, kept));
    return String.format(
        Locale.ROOT,
        "the scheduled run done on the 4 tables; archive maintain: %s data files per day of %s"
            + " before, %s after; %d turns kept",
        before,
        deltas,
        after,
        kept);
  }

  /** The data files of a table's current snapshot, per partition (a day of kafka_ts). */
  private static Map<String, Integer> filesPerDay(ArchiveSettings settings, String table)
      throws IOException {
    Map<String, Integer> files = new TreeMap<>();
    try (JdbcCatalog catalog = new JdbcCatalog()) {
      catalog.initialize(ArchiveSettings.CATALOG_NAME, ArchiveReader.catalogProperties(settings));
      Table t = catalog.loadTable(TableIdentifier.parse(table));
      try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          files.merge(
              t.specs().get(task.file().specId()).partitionToPath(task.file().partition()),
              1,
              Integer::sum);
        }
      }
    }
    return files;
  }

  /** The session explorer's check, with how long it took. */
  private static String checkUi(SmokeEnvironment env, String bootstrap, Topics topics)
      throws IOException, InterruptedException {
    long started = System.nanoTime();
    return String.format(
        Locale.ROOT,
        "%s (%.1f s)",
        ui(env).await(turnsBySession(bootstrap, topics), CHECK_TIMEOUT),
        (System.nanoTime() - started) / 1e9);
  }

  /** The session explorer on its published port, with the token compose gave it. */
  private static UiCheck ui(SmokeEnvironment env) {
    return new UiCheck(env.port("UI_PORT"), env.get("PREFIXLOG_UI_TOKEN"));
  }

  /** Turns per session key among the deltas topic's latest values. */
  private static Map<String, Long> turnsBySession(String bootstrap, Topics topics)
      throws IOException {
    Map<String, Long> turns = new TreeMap<>();
    for (String key : latestKeys(bootstrap, topics.sessionDeltas().name())) {
      turns.merge(key.substring(0, key.indexOf('/')), 1L, Long::sum);
    }
    return turns;
  }

  private static Set<String> latestKeys(String bootstrap, String topic) throws IOException {
    try {
      return CompactedView.read(bootstrap, topic, "prefixlog-compose-smoke").keySet();
    } catch (TopicScan.ScanException e) {
      throw new SmokeFailure("cannot read " + topic + ": " + e.getMessage());
    }
  }

  /** The demo engine's cache once it published every batch (its GET /kv). */
  private Set<String> awaitEngineCache(SmokeEnvironment env)
      throws IOException, InterruptedException {
    URI uri = URI.create("http://127.0.0.1:" + env.port("DEMO_STATUS_PORT") + "/kv");
    long deadline = System.nanoTime() + CHECK_TIMEOUT.toNanos();
    String status = "";
    while (System.nanoTime() < deadline) {
      status =
          http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
              .body();
      if (status.startsWith("published=true")) {
        return new TreeSet<>(status.lines().skip(1).toList());
      }
      TimeUnit.SECONDS.sleep(1);
    }
    throw new SmokeFailure(
        "the demo engine did not publish its KV events: " + status.lines().findFirst().orElse(""));
  }

  /** Polls the archive's three tables until their row counts equal the topics'. */
  private Map<String, Long> awaitArchive(SmokeEnvironment env, Map<String, Long> expected)
      throws IOException, InterruptedException {
    ArchiveSettings settings = archiveSettings(env);
    Map<String, Long> rows = Map.of();
    long deadline = System.nanoTime() + CHECK_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      rows = new TreeMap<>();
      try (ArchiveReader reader = ArchiveReader.open(settings)) {
        for (String table : expected.keySet()) {
          rows.put(table, reader.read(table, row -> {}));
        }
      }
      if (rows.equals(new TreeMap<>(expected))) {
        return rows;
      }
      TimeUnit.SECONDS.sleep(3);
    }
    throw new SmokeFailure("archive rows " + rows + ", topics " + expected);
  }

  /** The archive as the host reaches it: MinIO's and PostgreSQL's published ports. */
  private static ArchiveSettings archiveSettings(SmokeEnvironment env) {
    return ArchiveEnv.settings(
        archiveEnv(env),
        "http://127.0.0.1:" + env.port("MINIO_PORT"),
        ARCHIVE_WAREHOUSE,
        catalogUri(env));
  }

  /** The operator's archive key: the maintenance user's, as the README's host examples use. */
  private static Map<String, String> archiveEnv(SmokeEnvironment env) {
    return Map.of(
        ArchiveEnv.ACCESS_KEY,
        "archive-maintenance",
        ArchiveEnv.SECRET_KEY,
        env.get("MINIO_MAINTENANCE_PASSWORD"),
        ArchiveEnv.CATALOG_USER,
        "iceberg",
        ArchiveEnv.CATALOG_PASSWORD,
        env.get("POSTGRES_PASSWORD"));
  }

  private static String catalogUri(SmokeEnvironment env) {
    return "jdbc:postgresql://127.0.0.1:" + env.port("POSTGRES_PORT") + "/iceberg";
  }

  /** Polls a count until it reaches {@code expected}; more is a failure at once. */
  private static long awaitCount(TopicCounts.Counter counter, long expected)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + CHECK_TIMEOUT.toNanos();
    long count = -1;
    while (System.nanoTime() < deadline) {
      count = counter.count();
      if (count > expected) {
        throw new SmokeFailure(count + " deltas for " + expected + " requests: duplicates");
      }
      if (count == expected) {
        return count;
      }
      TimeUnit.SECONDS.sleep(2);
    }
    throw new SmokeFailure(count + " deltas for " + expected + " requests");
  }

  private void report(String name, String summary, long since) {
    terminal
        .out()
        .printf(
            Locale.ROOT,
            "compose-smoke: %s %-15s %s (%.1f s)%n",
            step == 0 ? "     " : "[" + step + "/" + STEPS + "]",
            name,
            summary,
            (System.nanoTime() - since) / 1e9);
    terminal.out().flush();
  }

  private void report(String name, String summary) {
    step = 0;
    report(name, summary + ", in all", started);
  }
}
