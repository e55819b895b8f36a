package io.prefixlog.tools.ui;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prefixlog.cli.Terminal;
import io.prefixlog.core.http.HostCheck;
import io.prefixlog.core.http.HostFilter;
import io.prefixlog.schemas.RecordLimits;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.tools.analyze.AnalyzeRequest;
import io.prefixlog.tools.analyze.AnalyzeService;
import io.prefixlog.tools.topic.CompactedView;
import io.prefixlog.tools.topic.TopicScan;
import io.prefixlog.tools.ui.SessionIndex.Query;
import io.prefixlog.tools.ui.SessionIndex.Sort;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session explorer's HTTP server: the pages, a turn's exact bytes, the static CSS and script.
 *
 * <p>Why the JDK's {@code com.sun.net.httpserver} and not Vert.x (which the capture proxy uses):
 * every page blocks (a fetch by offset from Kafka, a rebuild, a SHA-256), so on Vert.x each would
 * be an {@code executeBlocking} around the whole handler, and an event loop would buy nothing for a
 * handful of people looking at pages; the JDK server with a small pool of worker threads is that
 * model directly, costs no dependency, and core's {@code MetricsServer} already uses it.
 *
 * <p>Privacy: bodies are only ever written to the response, never logged; pages carry {@code
 * no-store} and a content security policy that allows nothing from elsewhere (no CDN: the script
 * and style are served from here); the referrer never leaves the UI. Every request but {@code
 * /health} must carry the token, which the UI always has, and every request, {@code /health} too,
 * passes {@link HostCheck}: a page that rebinds its DNS name to this machine, or posts from another
 * site, is refused before the token is looked at.
 */
public final class UiServer implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(UiServer.class);
  static final String COOKIE = "prefixlog_ui_token";
  static final int PAGE_SIZE = 50;
  private static final int THREADS = 4;

  private final UiSettings settings;
  private final Topics topics;
  private final SessionIndex index;
  private final IndexFollower follower;
  private final RecordFetcher fetcher;
  private final BlockIndex blocks = new BlockIndex();
  private final IndexFollower blockFollower;
  private final ChunkIndex chunks = new ChunkIndex();
  private final IndexFollower chunkFollower;
  private final RecordFetcher chunkFetcher;
  private final ChunkPrefix chunkPrefix = new ChunkPrefix();
  private final HttpServer http;
  private final AtomicLong refused = new AtomicLong();
  private final ExecutorService pool;
  private final Analysis analysis;
  private final Path workDir;
  private final LiveState live;
  private final ArchiveHistory archive;
  private boolean closed;

  private UiServer(UiSettings settings, SessionIndex index, Path workDir) throws IOException {
    this.settings = settings;
    this.topics = Topics.withPrefix(settings.topicPrefix());
    this.index = index;
    this.workDir = workDir;
    int maxRecord = RecordLimits.maxRecordBytesInt(RecordLimits.DEFAULT_MAX_BODY_BYTES);
    String deltas = topics.sessionDeltas().name();
    this.follower = new IndexFollower(settings.bootstrap(), deltas, index, maxRecord);
    this.fetcher = new RecordFetcher(settings.bootstrap(), deltas, maxRecord);
    // The block index and the chunk lookups: metadata, no body; their own consumers, so that a
    // topic that does not exist (KV events or lookups off) delays nothing else.
    this.blockFollower =
        new IndexFollower(
            settings.bootstrap(),
            topics.blockIndex().name(),
            blocks::put,
            maxRecord,
            "prefixlog-ui-blocks");
    String lookups = topics.chunkLookups().name();
    this.chunkFollower =
        new IndexFollower(
            settings.bootstrap(), lookups, chunks::put, maxRecord, "prefixlog-ui-lookups");
    this.chunkFetcher = new RecordFetcher(settings.bootstrap(), lookups, maxRecord);
    this.analysis = new Analysis(workDir.resolve("analysis"));
    this.live = new LiveState(settings.streamApp(), settings.stateToken());
    this.archive =
        settings.archive() == null
            ? null
            : new ArchiveHistory(
                settings.archive(), settings.bootstrap(), topics.erasures().name());
    this.http = HttpServer.create(new InetSocketAddress(settings.host(), settings.port()), 64);
    AtomicInteger n = new AtomicInteger();
    this.pool =
        Executors.newFixedThreadPool(
            THREADS,
            r -> {
              Thread t = new Thread(r, "prefixlog-ui-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    http.setExecutor(pool);
    http.createContext("/", this::handle)
        .getFilters()
        .add(
            new HostFilter(
                settings.hosts(),
                reason -> {
                  // Counted, and logged the first time and every 1,000th after: a page that
                  // keeps trying must not flood the log.
                  long count = refused.incrementAndGet();
                  if (count == 1 || count % 1000 == 0) {
                    LOGGER.warn(
                        "Refused requests whose Host or Origin is not this UI's"
                            + " (PREFIXLOG_ALLOWED_HOSTS) count={} last={}",
                        count,
                        reason.label());
                  }
                }));
  }

  /** Starts following the topic and serving. */
  static UiServer start(UiSettings settings) throws IOException {
    Path work = Files.createTempDirectory("prefixlog-ui-");
    UiServer server = new UiServer(settings, new SessionIndex(), work);
    server.follower.start();
    server.blockFollower.start();
    server.chunkFollower.start();
    if (server.archive != null) {
      server.archive.start();
    }
    server.http.start();
    LOGGER.info(
        "Serving host={} port={} topic={}",
        settings.host(),
        server.port(),
        server.topics.sessionDeltas().name());
    return server;
  }

  /**
   * Starts the UI on 127.0.0.1 with a generated token, as {@code up} runs it next to the stack it
   * started and the UI benchmark measures it (public for those callers; everything else in this
   * package stays package-private); {@link #loginUrl} carries the token.
   *
   * @param port the port; 0 picks a free one
   */
  public static UiServer startOnLoopback(String bootstrap, String topicPrefix, int port)
      throws IOException {
    return start(
        new UiSettings(
            bootstrap,
            topicPrefix,
            UiSettings.DEFAULT_HOST,
            port,
            UiSettings.generatedToken(),
            null,
            null,
            null,
            HostCheck.of(List.of()),
            true,
            Map.of()));
  }

  int port() {
    return http.getAddress().getPort();
  }

  /**
   * The URL that logs in: opened once, it sets the token's cookie. It holds the token, so it is
   * printed to the terminal of whoever started the UI, never logged.
   */
  public String loginUrl() {
    return url() + "?token=" + settings.token();
  }

  /** The URL of the sessions list (without the token). */
  public String url() {
    String host = settings.host().contains(":") ? "[" + settings.host() + "]" : settings.host();
    return "http://" + host + ":" + port() + "/";
  }

  boolean awaitIndexed(long timeout, TimeUnit unit) throws InterruptedException {
    return follower.awaitCaughtUp(timeout, unit);
  }

  SessionIndex index() {
    return index;
  }

  BlockIndex blocks() {
    return blocks;
  }

  ChunkIndex chunks() {
    return chunks;
  }

  private void handle(HttpExchange exchange) throws IOException {
    long started = System.nanoTime();
    try (exchange) {
      URI uri = exchange.getRequestURI();
      String path = uri.getPath();
      Map<String, String> params = params(uri.getRawQuery());
      Viewer viewer = path.equals("/health") ? Viewer.EVERY_TENANT : viewer(exchange, params, uri);
      if (viewer == null) {
        return;
      }
      Response response;
      try {
        response = route(exchange.getRequestMethod(), path, params, viewer);
      } catch (RecordFetcher.FetchException e) {
        response = Response.error(503, "Kafka did not answer", e.getMessage());
      } catch (RuntimeException e) {
        LOGGER.error("Page failed path={}", path, e);
        response = Response.error(500, "This page failed", e.toString());
      }
      send(exchange, response, started);
    }
  }

  /** The response of one request: status, type, bytes, and extra headers. */
  record Response(int status, String type, byte[] body, Map<String, String> headers) {
    static Response html(String html) {
      return new Response(
          200, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    static Response error(int status, String title, String detail) {
      String html =
          Html.page(title, "<h1>" + Html.text(title) + "</h1><p>" + Html.text(detail) + "</p>");
      return new Response(
          status, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    static Response redirect(String location) {
      return new Response(
          303, "text/plain; charset=utf-8", new byte[0], Map.of("Location", location));
    }
  }

  /**
   * Whose sessions a request may see: every session (the UI's token), or one tenant's (a token of
   * {@code PREFIXLOG_UI_TENANT_TOKENS}).
   *
   * @param tenant the tenant id, or null for every session
   */
  record Viewer(String tenant) {
    static final Viewer EVERY_TENANT = new Viewer(null);
  }

  /** The pages that show every session's data, which a tenant's token does not open. */
  private static final java.util.Set<String> ACROSS_TENANTS =
      java.util.Set.of(
          "/archive",
          "/cache",
          "/blocks",
          "/cache/analyze",
          "/cache/curve.png",
          "/cache/rolling.png");

  Response route(String method, String path, Map<String, String> params)
      throws RecordFetcher.FetchException {
    return route(method, path, params, Viewer.EVERY_TENANT);
  }

  /**
   * A tenant's viewer gets the sessions list of its tenant, and the session and turn pages of its
   * tenant's sessions on the topic; any other session is answered as one that does not exist.
   */
  Response route(String method, String path, Map<String, String> params, Viewer viewer)
      throws RecordFetcher.FetchException {
    if (viewer.tenant() == null) {
      return routeAll(method, path, params);
    }
    if (ACROSS_TENANTS.contains(path) || "archive".equals(params.get("source"))) {
      return Response.error(
          403, "Not for a tenant's token", "This page shows every tenant's sessions.");
    }
    if (path.equals("/")) {
      return sessions(params, viewer.tenant());
    }
    if (path.startsWith("/session") || path.startsWith("/turn")) {
      String key = params.getOrDefault("key", "");
      boolean own = index.summary(key).map(s -> viewer.tenant().equals(s.tenant())).orElse(false);
      if (!own) {
        return Response.error(
            404, "No such session", "No session " + key + " of this tenant on the topic.");
      }
      return path.equals("/session") ? session(params, viewer) : routeAll(method, path, params);
    }
    return routeAll(method, path, params);
  }

  private Response routeAll(String method, String path, Map<String, String> params)
      throws RecordFetcher.FetchException {
    if (method.equals("POST") && path.equals("/cache/analyze")) {
      analysis.run(settings.bootstrap(), settings.topicPrefix());
      return Response.redirect("/cache");
    }
    if (!method.equals("GET") && !method.equals("HEAD")) {
      return new Response(
          405,
          "text/plain; charset=utf-8",
          "GET only\n".getBytes(StandardCharsets.UTF_8),
          Map.of("Allow", "GET, HEAD"));
    }
    return switch (path) {
      case "/" -> sessions(params);
      case "/archive" -> archivedSessions(params);
      case "/session" -> session(params);
      case "/turn" -> turn(params, false);
      case "/turn/body" -> turn(params, true);
      case "/cache" -> cache();
      case "/blocks" -> blocks(params);
      case "/cache/curve.png" -> analysis.chart("curve.png");
      case "/cache/rolling.png" -> analysis.chart("rolling.png");
      case "/static/ui.css" -> resource("ui.css", "text/css; charset=utf-8");
      case "/static/ui.js" -> resource("ui.js", "text/javascript; charset=utf-8");
      case "/health" -> health();
      default -> Response.error(404, "Not found", "There is no page " + path + ".");
    };
  }

  private SessionPages.IndexState state() {
    return new SessionPages.IndexState(follower.caughtUp(), index.counts(), follower.problem());
  }

  /** One tenant's sessions list: its sessions on the topic only, and no other tenant's models. */
  private Response sessions(Map<String, String> p, String tenant) {
    return sessions(p, index, state(), tenant);
  }

  Response sessions(Map<String, String> p) {
    Response page = sessions(p, index, state(), null);
    if (archive == null || page.status() != 200) {
      return page;
    }
    return Response.html(
        new String(page.body(), StandardCharsets.UTF_8)
            .replace(
                "<h1>Sessions</h1>",
                "<h1>Sessions</h1><p class=\"status\">History beyond the topic's retention:"
                    + " <a id=\"archive-list\" href=\"/archive\">archived sessions</a>.</p>"));
  }

  /**
   * The archived sessions list: the sessions list page over the archive's last scan, at {@code
   * /archive}, its links and form pointed there and its sessions opened from the archive.
   */
  Response archivedSessions(Map<String, String> p) {
    if (archive == null) {
      return Response.error(
          404,
          "No archive",
          "The UI was started without --archive: only the topic's sessions are shown.");
    }
    ArchiveHistory.Scan scan = archive.scan();
    Response page = sessions(p, scan.index(), archiveState(scan), null);
    if (page.status() != 200) {
      return page;
    }
    String html =
        new String(page.body(), StandardCharsets.UTF_8)
            .replace("<h1>Sessions</h1>", "<h1>Archived sessions</h1>")
            .replace("action=\"/\"", "action=\"/archive\"")
            .replace("href=\"/?", "href=\"/archive?")
            .replace("<a href=\"/\">Clear</a>", "<a href=\"/archive\">Clear</a>")
            .replace("href=\"/session?key=", "href=\"/session?source=archive&amp;key=");
    return Response.html(html);
  }

  /** The archive scan's status line, in the index's form. */
  private SessionPages.IndexState archiveState(ArchiveHistory.Scan scan) {
    ArchiveHistory.Erasures erasures = archive.erasures();
    StringBuilder problem = new StringBuilder();
    problem
        .append("From the archive (table ")
        .append(archive.settings().table())
        .append("): ")
        .append(scan.rows())
        .append(" rows read")
        .append(scan.atMs() == 0 ? "" : " at " + Html.iso(scan.atMs()))
        .append(", again every ")
        .append(archive.settings().refresh().toSeconds())
        .append(" s");
    if (scan.truncated()) {
      problem
          .append("; the scan stopped at --archive-max-rows ")
          .append(archive.settings().maxRows())
          .append(": sessions beyond it are not listed (their pages open by key)");
    }
    if (!scan.problem().isEmpty()) {
      problem.append("; ").append(scan.problem());
    }
    if (!erasures.problem().isEmpty()) {
      problem
          .append("; no archived session is shown while erasures cannot be checked: ")
          .append(erasures.problem());
    }
    return new SessionPages.IndexState(scan.atMs() != 0, scan.index().counts(), problem.toString());
  }

  private Response sessions(
      Map<String, String> p, SessionIndex index, SessionPages.IndexState state, String tenant) {
    Optional<Sort> sort = Sort.parse(p.getOrDefault("sort", "last"));
    if (sort.isEmpty()) {
      return Response.error(400, "Bad sort", "sort is one of last, turns, bytes, cached.");
    }
    long from;
    long to;
    try {
      from = p.getOrDefault("from", "").isEmpty() ? Long.MIN_VALUE : epochMs(p.get("from"));
      to = p.getOrDefault("to", "").isEmpty() ? Long.MAX_VALUE : epochMs(p.get("to")) + 59_999;
    } catch (DateTimeParseException e) {
      return Response.error(400, "Bad time", "from and to are times like 2026-11-26T13:39 (UTC).");
    }
    int page;
    try {
      page = Math.max(0, Integer.parseInt(p.getOrDefault("page", "0")));
    } catch (NumberFormatException e) {
      return Response.error(400, "Bad page", "page is a whole number.");
    }
    Query q =
        new Query(
            p.getOrDefault("q", "").strip(),
            p.getOrDefault("model", "").strip(),
            p.getOrDefault("path", "").strip(),
            from,
            to,
            sort.get(),
            "asc".equals(p.get("order")),
            page,
            PAGE_SIZE,
            tenant);
    SessionIndex.Page rows = index.query(q);
    if (tenant != null) {
      // How many sessions other tenants have is theirs to know.
      rows = new SessionIndex.Page(rows.matched(), rows.matched(), rows.rows());
    }
    return Response.html(
        SessionPages.list(
            q,
            rows,
            tenant == null ? index.models() : List.of(),
            tenant == null ? index.paths() : List.of(),
            tenant == null ? state.html() : state.tenantHtml(),
            p.getOrDefault("from", ""),
            p.getOrDefault("to", "")));
  }

  private static long epochMs(String localTime) {
    return LocalDateTime.parse(localTime).toInstant(ZoneOffset.UTC).toEpochMilli();
  }

  Response session(Map<String, String> p) {
    return session(p, Viewer.EVERY_TENANT);
  }

  /**
   * @param viewer a tenant's viewer gets the page from the topic only, without the archive's link
   *     or the index's counts
   */
  private Response session(Map<String, String> p, Viewer viewer) {
    boolean withArchive = archive != null && viewer.tenant() == null;
    String key = p.getOrDefault("key", "");
    Optional<SessionIndex.Summary> summary = index.summary(key);
    List<TurnInfo> turns = index.turns(key);
    boolean live = summary.isPresent() && !turns.isEmpty();
    if (withArchive && (!live || "archive".equals(p.get("source")))) {
      return archivedSession(key);
    }
    if (!live) {
      return Response.error(
          404,
          "No such session",
          "No session " + key + " on the topic: it was erased, or never captured.");
    }
    SessionPages.Lookups lookups;
    try {
      ChunkPrefix.Figures figures = chunkPrefix.of(key, turns, chunks.of(key), chunkFetcher::fetch);
      lookups =
          new SessionPages.Lookups(
              figures.hits(),
              figures.unresolved(),
              chunkFollower.caughtUp(),
              chunkFollower.problem());
    } catch (RecordFetcher.FetchException e) {
      // The timeline needs no lookup: it is shown, and says why the figures are missing.
      lookups =
          new SessionPages.Lookups(
              Map.of(),
              0,
              chunkFollower.caughtUp(),
              "cannot read the chunk lookups: " + e.getMessage());
    }
    String blocksHtml = BlockPage.ofSession(blocks.ofSession(key), blockFollower.caughtUp());
    String status = viewer.tenant() == null ? state().html() : state().tenantHtml();
    if (withArchive) {
      status +=
          "<p class=\"status\">Older chains may be in the archive: <a id=\"archive-link\""
              + " href=\"/session?source=archive&amp;key="
              + Html.url(key)
              + "\">this session in the archive</a>.</p>";
    }
    return Response.html(
        SessionPages.session(
            summary.get(), turns, status, lookups, this.live.panel(key), blocksHtml));
  }

  Response blocks(Map<String, String> p) {
    int page;
    try {
      page = Math.max(0, Integer.parseInt(p.getOrDefault("page", "0")));
    } catch (NumberFormatException e) {
      return Response.error(400, "Bad page", "page is a whole number.");
    }
    Map<String, Integer> sources = blocks.sources();
    String source = p.getOrDefault("source", "");
    if (source.isEmpty() && !sources.isEmpty()) {
      source = sources.keySet().iterator().next();
    }
    // Hashes are stored as lower-case hex; a pasted 0x prefix or capitals still find them.
    String hash = p.getOrDefault("hash", "").strip().toLowerCase(java.util.Locale.ROOT);
    if (hash.startsWith("0x")) {
      hash = hash.substring(2);
    }
    return Response.html(
        BlockPage.render(
            sources,
            source,
            hash,
            page,
            blocks.page(source, hash, page, BlockPage.PAGE_SIZE),
            new BlockPage.State(blockFollower.caughtUp(), blocks.counts(), blockFollower.problem()),
            topics.blockIndex().name(),
            k -> !k.isEmpty() && index.summary(k).isPresent()));
  }

  /** A session read from the archive now: its page marked so, with the live-state panel. */
  private Response archivedSession(String key) {
    Optional<ArchiveHistory.Session> session;
    try {
      session = archive.session(key);
    } catch (IOException e) {
      return Response.error(503, "The archive did not answer", e.getMessage());
    }
    if (session.isEmpty()) {
      return Response.error(
          404,
          "No such session",
          "No session "
              + key
              + " on the topic or in the archive: it was erased, or never captured.");
    }
    String status =
        "<p class=\"status\" id=\"from-archive\"><strong>From the archive:</strong> read now"
            + " from the archived delta table "
            + Html.text(archive.settings().table())
            + " (history beyond the topic's retention).</p>";
    SessionPages.Lookups lookups =
        new SessionPages.Lookups(
            Map.of(),
            0,
            true,
            "not read for a session from the archive (its chunk_lookups table is not queried)");
    return Response.html(
        SessionPages.session(
            session.get().summary(), session.get().turns(), status, lookups, live.panel(key), ""));
  }

  Response turn(Map<String, String> p, boolean bytes) throws RecordFetcher.FetchException {
    String key = p.getOrDefault("key", "");
    String chain = p.getOrDefault("chain", "");
    long seq;
    try {
      seq = Long.parseLong(p.getOrDefault("seq", ""));
    } catch (NumberFormatException e) {
      return Response.error(400, "Bad turn", "seq is a whole number.");
    }
    Optional<TurnInfo> info = index.turn(key, chain, seq);
    if (archive != null && (info.isEmpty() || "archive".equals(p.get("source")))) {
      return archivedTurn(key, chain, seq, bytes);
    }
    if (info.isEmpty()) {
      return noSuchTurn(seq, key, "is not on the topic: erased, or never captured.");
    }
    TurnRebuild.Result result = rebuild(key, chain, seq);
    if (result == null) {
      return noSuchTurn(seq, key, "was erased since it was listed.");
    }
    return turnResponse(key, info.get(), result, bytes, null);
  }

  /** The 404 page of a turn that cannot be shown; {@code why} completes "Turn n of session k". */
  private static Response noSuchTurn(long seq, String key, String why) {
    return Response.error(404, "No such turn", "Turn " + seq + " of session " + key + " " + why);
  }

  /** A turn rebuilt from the archive's rows of its chain, checked as reconstruct checks it. */
  private Response archivedTurn(String key, String chain, long seq, boolean bytes) {
    Optional<ArchiveHistory.Session> session;
    try {
      session = archive.session(key);
    } catch (IOException e) {
      return Response.error(503, "The archive did not answer", e.getMessage());
    }
    Map<Long, DeltaRecord> records =
        session.map(s -> s.chains().getOrDefault(chain, Map.of())).orElse(Map.of());
    Optional<TurnInfo> info =
        session.flatMap(
            s ->
                s.turns().stream()
                    .filter(t -> t.chain().equals(chain) && t.seq() == seq)
                    .findFirst());
    if (info.isEmpty() || !records.containsKey(seq)) {
      return noSuchTurn(
          seq, key, "is not on the topic or in the archive: erased, or never captured.");
    }
    return turnResponse(
        key, info.get(), TurnRebuild.rebuild(records, seq), bytes, archive.reconstructArgs());
  }

  private Response turnResponse(
      String key, TurnInfo info, TurnRebuild.Result result, boolean bytes, String archiveArgs) {
    String chain = info.chain();
    long seq = info.seq();
    if (bytes) {
      if (!result.verified()) {
        return Response.error(
            409, "Not verified", "The rebuilt body does not match its record: " + result.problem());
      }
      String name =
          (key + "-" + (chain.isEmpty() ? "" : chain + "-") + seq + ".body")
              .replaceAll("[^A-Za-z0-9._-]", "_");
      return new Response(
          200,
          "application/octet-stream",
          result.body(),
          Map.of("Content-Disposition", "attachment; filename=\"" + name + "\""));
    }
    return Response.html(
        TurnPage.render(
            key,
            info,
            result,
            new TurnPage.Source(settings.bootstrap(), settings.topicPrefix(), archiveArgs)));
  }

  /**
   * Fetches the turn's records and its bases' by offset and rebuilds it; null when the turn's own
   * record is no longer there.
   */
  TurnRebuild.Result rebuild(String key, String chain, long seq)
      throws RecordFetcher.FetchException {
    Map<Long, TurnInfo> chainTurns = new HashMap<>();
    for (TurnInfo t : index.turns(key)) {
      if (t.chain().equals(chain)) {
        chainTurns.put(t.seq(), t);
      }
    }
    Map<Integer, List<Long>> offsets = new TreeMap<>();
    Map<Integer, Map<Long, Long>> seqAt = new HashMap<>();
    for (long s : TurnRebuild.ancestry(chainTurns, seq)) {
      TurnInfo t = chainTurns.get(s);
      if (t != null) {
        offsets.computeIfAbsent(t.partition(), x -> new ArrayList<>()).add(t.offset());
        seqAt.computeIfAbsent(t.partition(), x -> new HashMap<>()).put(t.offset(), s);
      }
    }
    Map<Long, DeltaRecord> records = new HashMap<>();
    for (Map.Entry<Integer, List<Long>> e : offsets.entrySet()) {
      for (Map.Entry<Long, RecordFetcher.Located> r :
          fetcher.fetch(e.getKey(), e.getValue()).entrySet()) {
        long s = seqAt.get(e.getKey()).get(r.getKey());
        if (r.getValue().value() == null
            || !(DeltaRecord.key(key, chain, s)).equals(r.getValue().key())) {
          continue; // erased since it was indexed: the rebuild names the missing turn
        }
        try {
          records.put(s, Json.mapper().readValue(r.getValue().value(), DeltaRecord.class));
        } catch (IOException ex) {
          LOGGER.warn(
              "Unreadable record sessionKey={} partition={} offset={}",
              key,
              e.getKey(),
              r.getKey());
        }
      }
    }
    if (!records.containsKey(seq)) {
      return null; // a tombstone or compaction since the index located it
    }
    return TurnRebuild.rebuild(records, seq);
  }

  private Response cache() {
    String topic = topics.sourceStats().name();
    List<SourceStats> stats = new ArrayList<>();
    String problem = "";
    try {
      for (byte[] v : CompactedView.read(settings.bootstrap(), topic, "prefixlog-ui-kv").values()) {
        stats.add(Json.mapper().readValue(v, SourceStats.class));
      }
    } catch (TopicScan.ScanException | IOException e) {
      stats = null;
      problem = "Cannot read " + topic + ": " + e.getMessage();
    }
    return Response.html(
        CachePage.render(
            stats,
            problem,
            topic,
            analysis.report(),
            analysis.hasCharts(),
            analysis.running(),
            k -> index.summary(k).isPresent()));
  }

  private Response health() {
    String problem = follower.problem();
    return problem.isEmpty()
        ? new Response(
            200, "text/plain; charset=utf-8", "ok\n".getBytes(StandardCharsets.UTF_8), Map.of())
        : new Response(
            503,
            "text/plain; charset=utf-8",
            (problem + "\n").getBytes(StandardCharsets.UTF_8),
            Map.of());
  }

  private static Response resource(String name, String type) {
    try (InputStream in = UiServer.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("resource " + name + " is missing from the build");
      }
      return new Response(200, type, in.readAllBytes(), Map.of("Cache-Control", "max-age=300"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Who the request is from, or null when it may not proceed (the response is then sent). The token
   * may come as a bearer header, as the cookie, or once as {@code ?token=} (answered with the
   * cookie and a redirect to the same page without it, so that it leaves the address bar and the
   * history).
   */
  private Viewer viewer(HttpExchange exchange, Map<String, String> params, URI uri)
      throws IOException {
    String given = params.get("token");
    if (given != null && viewerOf(given) != null) {
      String rest =
          uri.getRawQuery() == null
              ? ""
              : uri.getRawQuery().replaceAll("(^|&)token=[^&]*", "").replaceFirst("^&", "");
      exchange
          .getResponseHeaders()
          .add("Set-Cookie", COOKIE + "=" + given + "; Path=/; HttpOnly; SameSite=Strict");
      send(
          exchange,
          Response.redirect(uri.getPath() + (rest.isEmpty() ? "" : "?" + rest)),
          System.nanoTime());
      return null;
    }
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header != null && header.startsWith("Bearer ")) {
      Viewer viewer = viewerOf(header.substring(7).strip());
      if (viewer != null) {
        return viewer;
      }
    }
    for (String cookies : exchange.getRequestHeaders().getOrDefault("Cookie", List.of())) {
      for (String c : cookies.split(";")) {
        String[] kv = c.strip().split("=", 2);
        Viewer viewer = kv.length == 2 && kv[0].equals(COOKIE) ? viewerOf(kv[1]) : null;
        if (viewer != null) {
          return viewer;
        }
      }
    }
    send(
        exchange,
        new Response(
            401,
            "text/html; charset=utf-8",
            Html.page(
                    "Token required",
                    "<h1>Token required</h1><p>This prefixlog ui needs its token: open it as"
                        + " <code>/?token=…</code> once, or send <code>Authorization: Bearer …</code>.</p>")
                .getBytes(StandardCharsets.UTF_8),
            Map.of("WWW-Authenticate", "Bearer")),
        System.nanoTime());
    return null;
  }

  /**
   * The viewer a token stands for, or null: every token is compared, each in constant time, so that
   * response times say nothing about which one nearly matched.
   */
  private Viewer viewerOf(String given) {
    Viewer found = matches(settings.token(), given) ? Viewer.EVERY_TENANT : null;
    for (Map.Entry<String, String> t : settings.tenantTokens().entrySet()) {
      if (matches(t.getKey(), given)) {
        found = new Viewer(t.getValue());
      }
    }
    return found;
  }

  /** Compares in constant time, so that response times say nothing about the token. */
  private static boolean matches(String token, String given) {
    return MessageDigest.isEqual(
        token.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange exchange, Response r, long started) throws IOException {
    var h = exchange.getResponseHeaders();
    h.set("Content-Type", r.type());
    h.set("X-Content-Type-Options", "nosniff");
    // same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" with the
    // UI's own form posts, which the Origin check cannot tell from a sandboxed page's; the
    // referrer still never leaves the UI's origin.
    h.set("Referrer-Policy", "same-origin");
    h.set(
        "Content-Security-Policy",
        "default-src 'self'; frame-ancestors 'none'; form-action 'self'");
    h.putIfAbsent("Cache-Control", List.of("no-store"));
    r.headers().forEach(h::set);
    h.set(
        "Server-Timing",
        String.format(java.util.Locale.ROOT, "app;dur=%.1f", (System.nanoTime() - started) / 1e6));
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(r.status(), head || r.body().length == 0 ? -1 : r.body().length);
    if (!head && r.body().length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(r.body());
      }
    }
  }

  static Map<String, String> params(String rawQuery) {
    Map<String, String> params = new HashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return params;
    }
    for (String pair : rawQuery.split("&")) {
      String[] kv = pair.split("=", 2);
      try {
        params.put(
            URLDecoder.decode(kv[0], StandardCharsets.UTF_8),
            kv.length == 2 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "");
      } catch (IllegalArgumentException e) {
        // A malformed %-escape: the parameter is left out, and the page says what it misses.
      }
    }
    return params;
  }

  /**
   * {@code analyze} run on demand, one run at a time; its report and charts are kept in the UI's
   * work directory until the next run.
   */
  static final class Analysis {
    private final Path dir;
    private String report;
    private boolean running;

    Analysis(Path dir) {
      this.dir = dir;
    }

    void run(String bootstrap, String topicPrefix) {
      synchronized (this) {
        if (running) {
          return;
        }
        running = true;
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code;
      try {
        Files.createDirectories(dir);
        code =
            new AnalyzeService(Terminal.captured(out, err))
                .run(AnalyzeRequest.builder().topic(bootstrap, topicPrefix).png(dir).build())
                .outcome()
                .exitCode();
      } catch (IOException e) {
        code = -1;
        err.writeBytes(("cannot create " + dir + ": " + e).getBytes(StandardCharsets.UTF_8));
      }
      String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
      synchronized (this) {
        report = (code == 0 ? "" : "analyze failed (exit " + code + "):\n") + text;
        running = false;
      }
    }

    synchronized String report() {
      return report;
    }

    synchronized boolean running() {
      return running;
    }

    boolean hasCharts() {
      return Files.exists(dir.resolve("curve.png"));
    }

    Response chart(String name) {
      try {
        return new Response(200, "image/png", Files.readAllBytes(dir.resolve(name)), Map.of());
      } catch (IOException e) {
        return Response.error(404, "No chart", "Run analyze on the cache page first.");
      }
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    http.stop(0);
    pool.shutdownNow();
    follower.close();
    blockFollower.close();
    chunkFollower.close();
    fetcher.close();
    chunkFetcher.close();
    if (archive != null) {
      archive.close();
    }
    try (var files = Files.walk(workDir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      LOGGER.warn("Cannot remove the work directory {}: {}", workDir, e.toString());
    }
  }
}
