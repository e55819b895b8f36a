package io.prefixlog.tools.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.bridge.kv.KvBridge;
import io.prefixlog.bridge.kv.KvBridgeConfig;
import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.http.HostCheck;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.demo.DemoKvEngine;
import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.Ports;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.StreamApps;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.erase.EraseCommand;
import io.prefixlog.tools.replay.ReplayCommand;
import io.prefixlog.tools.topic.BlockIndexView;
import io.prefixlog.tools.topic.CompactedView;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.zeromq.ZContext;

/**
 * The session explorer in a real browser (Debian's chromium, headless, through its chromedriver)
 * over sessions captured as {@code up --demo} captures them: the capture proxy in front of the demo
 * engine, the stream app, a broker. It lists the sessions, searches one, opens it and a turn,
 * checks the SHA-256 the page shows against the digest of the body the client sent, that the diff
 * highlights the turn's new message and that the download is the exact bytes; opens the KV block
 * index a demo KV engine's events built and finds one of the engine's blocks by its hash; checks a
 * turn's chunk-prefix figure against the longest common prefix of the two turns' chunk hashes and
 * the turn tree; then erases a session with {@code prefixlog erase} and checks it is gone from the
 * list. Screenshots go to {@code target/ui-screenshots}.
 */
@ExtendWith(KafkaExtension.class)
class UiBrowserIT {
  private static final String PREFIX = "ui-it.";
  private static final String APP = "ui-it-app";
  private static final String SECRET = "ui-it-session-secret-0123456789ab";
  private static final int CONVERSATIONS = 4;
  private static final Path SCREENSHOTS = Path.of("target/ui-screenshots");

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  @Test
  @Timeout(value = 400, unit = TimeUnit.SECONDS)
  void shouldBrowseSessionsShowVerifiedTurnsWithTheirNewTextAndForgetErasedSessions(
      KafkaCluster kafka) throws Exception {
    // Given: four conversations' requests, what their sessions are called and their bodies
    Path root = ProjectHome.findFrom(Path.of("")).orElseThrow();
    Path corpus = root.resolve("corpora/agentic/tau_bench_gpt4o_airline.jsonl");
    List<Conversation> conversations = CorpusFile.read(corpus).subList(0, CONVERSATIONS);
    ChatRequests requests = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    SessionKeyDeriver keys =
        new SessionKeyDeriver(
            SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS);
    Map<String, List<byte[]>> bodiesByKey = new LinkedHashMap<>();
    for (Conversation c : conversations) {
      for (ChatRequests.ChatRequest r : requests.of(c)) {
        bodiesByKey
            .computeIfAbsent(keys.keyOfSessionId(r.conversationId()), k -> new ArrayList<>())
            .add(r.body());
      }
    }
    List<String> sessionKeys = List.copyOf(bodiesByKey.keySet());
    String shown = sessionKeys.get(0);
    String erased = sessionKeys.get(2);
    byte[] turn1 = bodiesByKey.get(shown).get(0);
    byte[] turn2 = bodiesByKey.get(shown).get(1);
    // A window of turn 2's new message that turn 1 does not hold: it can only come as an insert.
    String added = newText(turn1, turn2);
    // and, sent after the replay, turn 2 with its last message edited, then the last turn's exact
    // request again: the edit (newest) no longer holds the last turn's text, so the regeneration's
    // base is the last turn of the replay, not the turn before it: a branch
    String shownConversation = requests.of(conversations.get(0)).get(0).conversationId();
    int lastReplayed = bodiesByKey.get(shown).size();
    byte[] edited = edited(turn2);
    byte[] regenerated = bodiesByKey.get(shown).get(lastReplayed - 1);
    bodiesByKey.get(shown).add(edited);
    bodiesByKey.get(shown).add(regenerated);
    int regeneration = bodiesByKey.get(shown).size();
    long turns = bodiesByKey.values().stream().mapToLong(List::size).sum();

    Map<String, String> settings =
        StreamApps.settings(kafka.bootstrapServers(), PREFIX, APP, dir.resolve("state"));
    // The stream app answers state queries on its metrics port, for the live-state panel.
    int metricsPort = Ports.free("127.0.0.1");
    settings.put("PREFIXLOG_METRICS_PORT", Integer.toString(metricsPort));
    settings.put("PREFIXLOG_APPLICATION_SERVER", "127.0.0.1:" + metricsPort);
    StreamAppConfig config = StreamAppConfig.defaults(settings);
    try (StreamApp app = new StreamApp(config);
        DemoUpstream engine = DemoUpstream.start(DemoUpstream.Options.defaults());
        ZContext zmq = new ZContext()) {
      StreamApps.start(app);
      try (CaptureProxy proxy = startProxy(kafka.bootstrapServers(), engine)) {
        assertThat(
                new ReplayCommand(console.terminal(Map.of()))
                    .run(
                        new String[] {
                          "--corpus",
                          corpus.toString(),
                          "--conversations",
                          Integer.toString(CONVERSATIONS),
                          "--interleave",
                          "2",
                          "--stream",
                          "0",
                          "--via-proxy",
                          "http://127.0.0.1:" + proxy.port()
                        }))
            .as(console.err())
            .isEqualTo(Command.OK);
        for (byte[] body : List.of(edited, regenerated)) {
          HttpResponse<byte[]> answer =
              get(
                  HttpClient.newHttpClient(),
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + proxy.port() + "/v1/chat/completions"))
                      .header("Content-Type", "application/json")
                      .header("X-Session-ID", shownConversation)
                      .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
          assertThat(answer.statusCode()).isEqualTo(200);
        }
      }
      // and a demo engine's KV-cache events, through the bridge's subscriber, into the block index
      DemoKvEngine kvEngine = new DemoKvEngine(zmq, KV_BATCHES);
      KvBridgeConfig kvConfig = kvConfig(kafka.bootstrapServers(), kvEngine);
      String kvSource = kvConfig.subscriptions().get(0).source().id();
      Set<String> resident;
      try (KvBridge kv = new KvBridge(kvConfig)) {
        kv.start();
        kvEngine.start();
        assertThat(kvEngine.awaitPublished(120)).as(kvEngine.failure()).isTrue();
        resident = new TreeSet<>(kvEngine.residentHashes());
        // The subscriber stays open until the stream app's block index holds the engine's cache:
        // batches still in its socket when it closes would be lost.
        await()
            .alias("the block index equal to the demo engine's cache")
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(500))
            .until(
                () ->
                    BlockIndexView.residentHashes(
                        kafka.bootstrapServers(),
                        PREFIX + "kv.block-index",
                        "ui-it-blocks",
                        kvSource::equals),
                resident::equals);
      } finally {
        kvEngine.close();
      }
      // the chunk hashes the stream app wrote for the shown session's first two turns: turn 2's
      // record (version 2) lists only the hashes after those it shares with turn 1
      List<String> lookup1 = new ArrayList<>();
      List<String> lookup2 = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                lookup1.clear();
                lookup2.clear();
                Map<String, byte[]> lookups =
                    CompactedView.read(
                        kafka.bootstrapServers(), PREFIX + "chunk.lookups", "ui-it-lookups");
                byte[] second = null;
                for (Map.Entry<String, byte[]> e : lookups.entrySet()) {
                  String k = e.getKey();
                  if (k.startsWith(shown + "/") && k.endsWith("/1")) {
                    lookup1.addAll(hashes(e.getValue(), List.of()));
                  } else if (k.startsWith(shown + "/") && k.endsWith("/2")) {
                    second = e.getValue();
                  }
                }
                if (second != null && !lookup1.isEmpty()) {
                  lookup2.addAll(hashes(second, lookup1));
                }
                return !lookup1.isEmpty() && !lookup2.isEmpty();
              });
      int sharedChunks = 0;
      while (sharedChunks < Math.min(lookup1.size(), lookup2.size())
          && lookup1.get(sharedChunks).equals(lookup2.get(sharedChunks))) {
        sharedChunks++;
      }
      UiSettings ui =
          new UiSettings(
              kafka.bootstrapServers(),
              PREFIX,
              "127.0.0.1",
              0,
              TOKEN,
              "http://127.0.0.1:" + metricsPort,
              null,
              null,
              HostCheck.of(List.of()),
              false,
              Map.of());
      try (UiServer server = UiServer.start(ui)) {
        await()
            .alias(turns + " turns in the index")
            .atMost(Duration.ofSeconds(120))
            .until(() -> indexedTurns(server), n -> n == turns);
        await()
            .alias("the demo engine's blocks in the UI's block index")
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> server.blocks().sources().getOrDefault(kvSource, 0),
                n -> n == resident.size());
        await()
            .alias("the shown session's lookups in the UI's index")
            .atMost(Duration.ofSeconds(60))
            .until(() -> server.chunks().of(shown).size(), n -> n == bodiesByKey.get(shown).size());
        WebDriver browser = chromium();
        try {
          // When: the sessions list is opened by the login URL (its cookie then logs every page in)
          browser.get(server.loginUrl());

          // Then: it lists every session
          screenshot(browser, "1-sessions.png");
          assertThat(texts(browser, "#sessions tbody a.session"))
              .containsExactlyInAnyOrderElementsOf(sessionKeys);
          assertThat(browser.findElement(By.id("matched")).getText())
              .startsWith(CONVERSATIONS + " of " + CONVERSATIONS + " sessions match");

          // When: one session is searched by the start of its key and opened
          WebElement search = browser.findElement(By.id("q"));
          search.sendKeys(shown.substring(0, 6));
          search.submit();
          awaitPage(browser, "/?q=");
          assertThat(texts(browser, "#sessions tbody a.session")).containsExactly(shown);
          browser.findElement(By.cssSelector("#sessions tbody a.session")).click();
          awaitPage(browser, "/session?key=" + shown);

          // Then: its timeline has every turn, the first a keyframe, the second a delta on it
          screenshot(browser, "2-session.png");
          List<WebElement> rows = browser.findElements(By.cssSelector("#timeline tbody tr"));
          assertThat(rows).hasSize(bodiesByKey.get(shown).size());
          assertThat(rows.get(0).getText()).contains("keyframe").contains("first turn");
          assertThat(rows.get(1).getText()).contains("delta").contains("turn 1");
          // and each turn's chunk-prefix figure: none seen for the first, for the second the
          // chunks it shares with the first (the longest common prefix of their hashes)
          List<WebElement> chunkCells =
              browser.findElements(By.cssSelector("#timeline tbody td.chunk-prefix"));
          assertThat(sharedChunks).isPositive();
          assertThat(chunkCells.get(0).getDomAttribute("data-seen")).isEqualTo("0");
          assertThat(chunkCells.get(0).getDomAttribute("data-chunks"))
              .isEqualTo(Integer.toString(lookup1.size()));
          assertThat(chunkCells.get(1).getText())
              .startsWith(sharedChunks + " / " + lookup2.size() + " chunks");
          // and the turn tree has a dot per turn, and says in text what it draws
          assertThat(browser.findElements(By.cssSelector("#tree svg circle")))
              .hasSize(bodiesByKey.get(shown).size());
          assertThat(
                  browser
                      .findElement(By.cssSelector("#tree .tree-text li"))
                      .getDomProperty("textContent"))
              .startsWith("turn 1 (keyframe)");
          // and the regeneration is a branch from the last replayed turn, drawn as one, every
          // chunk of it seen
          WebElement last = rows.get(regeneration - 1);
          assertThat(last.getText()).contains("branch").contains("turn " + lastReplayed);
          assertThat(last.findElement(By.cssSelector("a.turn")).getText())
              .endsWith("/" + regeneration);
          assertThat(chunkCells.get(regeneration - 1).getDomAttribute("data-seen"))
              .isEqualTo(chunkCells.get(regeneration - 1).getDomAttribute("data-chunks"))
              .isNotEqualTo("0");
          List<WebElement> dots = browser.findElements(By.cssSelector("#tree svg circle"));
          assertThat(dots.get(regeneration - 1).getDomAttribute("class")).isEqualTo("node branch");
          assertThat(
                  browser
                      .findElement(By.cssSelector("#tree .tree-text"))
                      .getDomProperty("textContent"))
              .contains("turn " + regeneration + " (branch from turn " + lastReplayed + ")");
          screenshot(browser, "2-session-tree.png", "tree");
          // and the stream app's live state of the session: its turns and its newest base, the
          // digest of the last body the client sent
          String live = browser.findElement(By.id("live-state")).getText();
          assertThat(live)
              .contains("127.0.0.1:" + metricsPort)
              .contains(bodiesByKey.get(shown).size() + " (next seq ");
          List<byte[]> shownBodies = bodiesByKey.get(shown);
          assertThat(texts(browser, "#live-bases tbody td code").get(0))
              .isEqualTo(sha256(shownBodies.get(shownBodies.size() - 1)));
          ((JavascriptExecutor) browser)
              .executeScript("document.getElementById('live-state').scrollIntoView()");
          screenshot(browser, "2-session-live-state.png", "live-state");

          // When: its second turn is opened
          rows.get(1).findElement(By.cssSelector("a.turn")).click();
          awaitPage(browser, "&seq=2");

          // Then: the page shows the digest of the bytes the client sent, and says it matches
          screenshot(browser, "3-turn.png");
          assertThat(browser.findElement(By.id("sha")).getText()).isEqualTo(sha256(turn2));
          assertThat(browser.findElement(By.id("verdict")).getText()).isEqualTo("SHA-256 matches");
          // and the diff highlights the new message's text, which no copy carries
          assertThat(String.join("", texts(browser, ".diff ins"))).contains(added);
          assertThat(String.join("", texts(browser, ".diff .copy"))).doesNotContain(added);
          ((JavascriptExecutor) browser)
              .executeScript("document.getElementById('diff-h').scrollIntoView()");
          screenshot(browser, "3-turn-diff.png");
          // and the copy buttons carry the commands that rebuild it
          assertThat(browser.findElement(By.id("cmd-reconstruct")).getText())
              .isEqualTo(
                  "bin/prefixlog reconstruct --bootstrap "
                      + kafka.bootstrapServers()
                      + " --topic-prefix "
                      + PREFIX
                      + " --session "
                      + shown
                      + " --chain "
                      + chainOf(browser)
                      + " --seq 2 --print > turn.body");
          // and the download is the exact bytes
          String download = browser.findElement(By.id("download")).getDomProperty("href");
          HttpResponse<byte[]> body =
              HttpClient.newHttpClient()
                  .send(
                      HttpRequest.newBuilder(URI.create(download))
                          .header("Authorization", "Bearer " + TOKEN)
                          .build(),
                      HttpResponse.BodyHandlers.ofByteArray());
          assertThat(body.headers().firstValue("Content-Type"))
              .hasValue("application/octet-stream");
          assertThat(body.body()).isEqualTo(turn2);

          // When: the cache page runs analyze over the captured chunk lookups
          browser.get(server.url() + "cache");
          assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Cache");
          browser.findElement(By.cssSelector("form[action='/cache/analyze'] button")).click();
          new WebDriverWait(browser, Duration.ofSeconds(120))
              .until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("figure img")));

          // Then: it shows analyze's report and its charts, served from the UI
          screenshot(browser, "5-cache.png");
          assertThat(browser.findElement(By.cssSelector("details pre.raw")).getText())
              .contains("LRU hit rate by capacity");
          String chart =
              browser
                  .findElement(By.cssSelector("img[src='/cache/curve.png']"))
                  .getDomProperty("src");
          assertThat(
                  get(
                          HttpClient.newHttpClient(),
                          HttpRequest.newBuilder(URI.create(chart))
                              .header("Authorization", "Bearer " + TOKEN))
                      .headers()
                      .firstValue("Content-Type"))
              .hasValue("image/png");

          // When: the block index is opened from the cache page, and one block searched by hash
          browser.findElement(By.id("blocks-link")).click();
          awaitPage(browser, "/blocks");
          screenshot(browser, "6-blocks.png");

          // Then: it lists the engine's resident blocks, and finds the one searched
          assertThat(browser.findElement(By.id("blocks-matched")).getText())
              .startsWith(
                  String.format(
                      java.util.Locale.ROOT, "%,d blocks in %s", resident.size(), kvSource));
          String block = resident.iterator().next();
          WebElement hash = browser.findElement(By.id("hash"));
          hash.sendKeys(block.substring(0, 12));
          hash.submit();
          awaitPage(browser, "hash=");
          screenshot(browser, "7-block-search.png");
          assertThat(texts(browser, "#blocks tbody th code.hash")).contains(block);
          assertThat(texts(browser, "#blocks tbody th code.hash"))
              .allSatisfy(h -> assertThat(h).startsWith(block.substring(0, 12)));

          // When: a session is erased
          int code =
              new EraseCommand(console.terminal(Map.of("PREFIXLOG_SESSION_SECRET", SECRET)))
                  .run(
                      new String[] {
                        "--session",
                        erased,
                        "--bootstrap",
                        kafka.bootstrapServers(),
                        "--topic-prefix",
                        PREFIX,
                        "--application-id",
                        APP
                      });
          assertThat(code).as(console.out() + "\n" + console.err()).isEqualTo(Command.OK);

          // Then: the list no longer has it, and its page says so
          await()
              .alias("erased session gone from the list")
              .atMost(Duration.ofSeconds(60))
              .pollInterval(Duration.ofMillis(500))
              .until(
                  () -> {
                    browser.get(server.url());
                    return texts(browser, "#sessions tbody a.session");
                  },
                  keysShown -> keysShown.size() == CONVERSATIONS - 1);
          screenshot(browser, "4-after-erase.png");
          assertThat(texts(browser, "#sessions tbody a.session"))
              .doesNotContain(erased)
              .contains(shown);
          browser.get(server.url() + "session?key=" + erased);
          assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("No such session");
        } finally {
          browser.quit();
        }
      }

      // When: the UI is started with a token
      String token = "ui-it-token-0123456789";
      try (UiServer server =
          UiServer.start(new UiSettings(kafka.bootstrapServers(), PREFIX, "127.0.0.1", 0, token))) {
        HttpClient http = HttpClient.newHttpClient();
        URI list = URI.create(server.url());

        // Then: a request without it is refused, with the bearer header or the cookie it passes
        assertThat(get(http, HttpRequest.newBuilder(list)).statusCode()).isEqualTo(401);
        assertThat(
                get(
                        http,
                        HttpRequest.newBuilder(list)
                            .header("Authorization", "Bearer wrong-token-0123456789"))
                    .statusCode())
            .isEqualTo(401);
        assertThat(
                get(http, HttpRequest.newBuilder(list).header("Authorization", "Bearer " + token))
                    .statusCode())
            .isEqualTo(200);
        HttpResponse<byte[]> login =
            get(
                http,
                HttpRequest.newBuilder(
                    URI.create(server.url() + "?token=" + token + "&sort=turns")));
        assertThat(login.statusCode()).isEqualTo(303);
        assertThat(login.headers().firstValue("Location")).hasValue("/?sort=turns");
        String cookie = login.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        assertThat(get(http, HttpRequest.newBuilder(list).header("Cookie", cookie)).statusCode())
            .isEqualTo(200);

        // Probes: a page whose DNS name was rebound to 127.0.0.1 sends its own name as Host; a
        // page of another site posts with the victim's cookie. Both are refused before the token
        // is looked at; the same requests from the UI's own origin pass.
        int port = server.port();
        String own = "127.0.0.1:" + port;
        assertThat(raw(port, "GET /", "attacker.example:" + port, null, cookie))
            .startsWith("HTTP/1.1 403");
        assertThat(raw(port, "GET /health", "attacker.example:" + port, null, null))
            .startsWith("HTTP/1.1 403");
        assertThat(raw(port, "POST /cache/analyze", own, "http://attacker.example", cookie))
            .startsWith("HTTP/1.1 403");
        assertThat(raw(port, "GET /", own, "http://" + own, cookie)).startsWith("HTTP/1.1 200");
      }
    }
  }

  private static final String TOKEN = "ui-browser-it-token-0123";

  /**
   * One request written as a browser writes it, with the Host and Origin it chooses (the JDK's
   * HttpClient will not set Host); the response's head and body.
   */
  private static String raw(int port, String requestLine, String host, String origin, String cookie)
      throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      String head =
          requestLine
              + " HTTP/1.1\r\nHost: "
              + host
              + "\r\n"
              + (origin == null ? "" : "Origin: " + origin + "\r\n")
              + (cookie == null ? "" : "Cookie: " + cookie + "\r\n")
              + "Content-Length: 0\r\nConnection: close\r\n\r\n";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static final int KV_BATCHES = 60;

  /** The bridge's KV subscriber on the demo engine's endpoints, publishing to the test's topics. */
  private static KvBridgeConfig kvConfig(String bootstrap, DemoKvEngine engine) {
    Map<String, String> settings = new java.util.HashMap<>();
    settings.put("PREFIXLOG_KV_ENDPOINTS", engine.pubEndpoint());
    settings.put("PREFIXLOG_KV_REPLAY_ENDPOINTS", engine.replayEndpoint());
    settings.put("PREFIXLOG_KV_TOPIC", "");
    settings.put("PREFIXLOG_KV_DP_RANKS", "0");
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", bootstrap);
    settings.put("PREFIXLOG_TOPIC_PREFIX", PREFIX);
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    return KvBridgeConfig.fromSettings(Settings.of(settings));
  }

  /**
   * A lookup record's whole list: version 1's {@code chunk_hashes}, or version 2's {@code
   * prefix_chunks} first hashes of the previous turn's list followed by its {@code tail_hashes}.
   */
  private static List<String> hashes(byte[] lookup, List<String> previous)
      throws java.io.IOException {
    com.fasterxml.jackson.databind.JsonNode record = Json.mapper().readTree(lookup);
    List<String> hashes = new ArrayList<>();
    if (record.has("chunk_hashes")) {
      record.get("chunk_hashes").forEach(h -> hashes.add(h.asText()));
      return hashes;
    }
    hashes.addAll(previous.subList(0, record.get("prefix_chunks").asInt()));
    record.get("tail_hashes").forEach(h -> hashes.add(h.asText()));
    return hashes;
  }

  private static HttpResponse<byte[]> get(HttpClient http, HttpRequest.Builder request)
      throws Exception {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static long indexedTurns(UiServer server) {
    return server.index().query(SessionIndex.Query.all()).rows().stream()
        .mapToLong(SessionIndex.Summary::turns)
        .sum();
  }

  private static String chainOf(WebDriver browser) {
    return browser.findElement(By.cssSelector("h1 small code")).getText();
  }

  /**
   * 24 characters of turn 2's last message as its JSON holds them, found nowhere in turn 1: text a
   * delta can only insert.
   */
  private static String newText(byte[] turn1, byte[] turn2) throws Exception {
    String base = new String(turn1, StandardCharsets.UTF_8);
    JsonNode messages = Json.mapper().readTree(turn2).get("messages");
    String content = messages.get(messages.size() - 1).get("content").asText();
    String encoded = Json.mapper().writeValueAsString(content);
    encoded = encoded.substring(1, encoded.length() - 1);
    for (int i = 0; i + 24 <= encoded.length(); i++) {
      String window = encoded.substring(i, i + 24);
      if (!base.contains(window) && window.strip().equals(window)) {
        return window;
      }
    }
    throw new AssertionError("turn 2's last message has no text turn 1 lacks: pick another turn");
  }

  private static WebDriver chromium() {
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1440,1000");
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File("/usr/bin/chromedriver"))
            .usingAnyFreePort()
            .build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().window().setSize(new Dimension(1440, 1000));
    return driver;
  }

  /** Navigation after a click or a submit is asynchronous: waits for the new page's address. */
  private static void awaitPage(WebDriver browser, String urlPart) {
    new WebDriverWait(browser, Duration.ofSeconds(20))
        .until(ExpectedConditions.urlContains(urlPart));
  }

  private static List<String> texts(WebDriver browser, String css) {
    return browser.findElements(By.cssSelector(css)).stream()
        .map(e -> e.getDomProperty("textContent"))
        .toList();
  }

  /** Turn 2 with its last message changed, as a user who edits and resends it. */
  private static byte[] edited(byte[] turn) throws Exception {
    com.fasterxml.jackson.databind.node.ObjectNode body =
        (com.fasterxml.jackson.databind.node.ObjectNode) Json.mapper().readTree(turn);
    com.fasterxml.jackson.databind.node.ArrayNode messages =
        (com.fasterxml.jackson.databind.node.ArrayNode) body.get("messages");
    com.fasterxml.jackson.databind.node.ObjectNode last =
        (com.fasterxml.jackson.databind.node.ObjectNode) messages.get(messages.size() - 1);
    last.put("content", "Edited: which flights leave tomorrow morning instead?");
    return Json.mapper().writeValueAsBytes(body);
  }

  /** A screenshot of one element, scrolled into view. */
  private static void screenshot(WebDriver browser, String name, String id) throws Exception {
    WebElement element = browser.findElement(By.id(id));
    ((JavascriptExecutor) browser).executeScript("arguments[0].scrollIntoView()", element);
    Files.createDirectories(SCREENSHOTS);
    Files.write(SCREENSHOTS.resolve(name), element.getScreenshotAs(OutputType.BYTES));
  }

  private static void screenshot(WebDriver browser, String name) throws Exception {
    Files.createDirectories(SCREENSHOTS);
    byte[] png = ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES);
    Files.write(SCREENSHOTS.resolve(name), png);
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  private static CaptureProxy startProxy(String bootstrap, DemoUpstream engine) throws Exception {
    Map<String, String> settings = new java.util.HashMap<>();
    settings.put("PREFIXLOG_PROXY_UPSTREAM", engine.baseUrl());
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", bootstrap);
    settings.put("PREFIXLOG_TOPIC_PREFIX", PREFIX);
    settings.put("PREFIXLOG_PROXY_HOST", "127.0.0.1");
    settings.put("PREFIXLOG_PROXY_PORT", "0");
    settings.put("PREFIXLOG_METRICS_PORT", "-1");
    settings.put("PREFIXLOG_SESSION_SECRET", SECRET);
    return CaptureProxy.start(ProxyConfig.fromSettings(Settings.of(settings)));
  }
}
