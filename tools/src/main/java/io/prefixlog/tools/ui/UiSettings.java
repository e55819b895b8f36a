package io.prefixlog.tools.ui;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.http.HostCheck;
import io.prefixlog.core.session.TenantSource;
import io.prefixlog.tools.archive.ArchiveOptions;
import io.prefixlog.tools.topic.TopicOptions;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code prefixlog ui} runs with.
 *
 * @param token the token every request must carry: given, or generated on loopback ({@link
 *     #generatedToken})
 * @param hosts the names the UI answers to ({@code PREFIXLOG_ALLOWED_HOSTS})
 * @param tokenGenerated whether {@code token} was generated here, so that the login URL may show it
 * @param streamApp the stream app's metrics endpoint for the live-state panel, or null
 * @param stateToken the stream app's {@code PREFIXLOG_STATE_TOKEN}, or null
 * @param archive the archive to show history beyond the topic from, or null
 * @param tenantTokens token → tenant id: a holder of such a token sees that tenant's sessions only
 *     ({@value #TENANT_TOKENS_ENV})
 */
record UiSettings(
    String bootstrap,
    String topicPrefix,
    String host,
    int port,
    String token,
    String streamApp,
    String stateToken,
    ArchiveHistory.Settings archive,
    HostCheck hosts,
    boolean tokenGenerated,
    Map<String, String> tenantTokens) {
  static final String DEFAULT_HOST = "127.0.0.1";
  static final int DEFAULT_PORT = 8470;
  static final String TOKEN_ENV = "PREFIXLOG_UI_TOKEN";

  /** {@code TENANT=TOKEN,…}: tokens that show one tenant's sessions ({@link TenantSource}). */
  static final String TENANT_TOKENS_ENV = "PREFIXLOG_UI_TENANT_TOKENS";

  /** A token shorter than this is refused: it would be guessed. */
  static final int MIN_TOKEN_LENGTH = 16;

  static final List<Option> OPTIONS =
      java.util.stream.Stream.concat(
              List.of(
                  TopicOptions.BOOTSTRAP,
                  TopicOptions.TOPIC_PREFIX,
                  Option.value(
                      "host",
                      "ADDRESS",
                      DEFAULT_HOST,
                      "The address to serve on. Anything but loopback needs a token (--token or "
                          + TOKEN_ENV
                          + "): the pages show captured prompts."),
                  Option.value(
                      "port",
                      "PORT",
                      Integer.toString(DEFAULT_PORT),
                      "The port (0: any free port)."),
                  Option.value(
                      "token",
                      "TOKEN",
                      "$" + TOKEN_ENV + ", else generated",
                      "Require this token on every request (at least "
                          + MIN_TOKEN_LENGTH
                          + " characters): an Authorization: Bearer header, or the cookie that opening"
                          + " /?token=TOKEN once sets. Prefer the environment variable: a command line is"
                          + " visible to other users of the machine. Without one, on loopback, a random"
                          + " token is generated and the login URL printed. The names the UI answers"
                          + " to besides local ones: "
                          + HostCheck.SETTING.name()
                          + " (comma separated). "
                          + TENANT_TOKENS_ENV
                          + "=TENANT=TOKEN,… adds tokens that see one tenant's sessions each (the"
                          + " tenant id the proxy records, PREFIXLOG_TENANT), and none of the pages"
                          + " about every session (archive, cache, KV blocks)."),
                  Option.value(
                      "stream-app",
                      "URL",
                      "$" + LiveState.STREAM_APP_ENV + ", else none",
                      "The stream app's metrics endpoint (http://HOST:9464) of any instance run with"
                          + " PREFIXLOG_APPLICATION_SERVER: the session page then shows the session's live"
                          + " state there (its chain, turns and kept bases; the token from "
                          + LiveState.TOKEN_ENV
                          + ")."),
                  Option.value(
                      "archive-table",
                      "NS.NAME",
                      ArchivedTopic.NAMESPACE + ".session_deltas",
                      "With --archive: the archived delta table."),
                  Option.value(
                      "archive-max-rows",
                      "N",
                      Long.toString(ArchiveHistory.DEFAULT_MAX_ROWS),
                      "With --archive: the most rows each scan of the table for the archived sessions list"
                          + " reads."),
                  Option.value(
                      "archive-refresh",
                      "SECONDS",
                      Long.toString(ArchiveHistory.DEFAULT_REFRESH.toSeconds()),
                      "With --archive: how often the archived sessions list is scanned again."))
                  .stream(),
              ArchiveOptions.options(
                  "Show the sessions of the archive too (Iceberg in S3, via its JDBC catalog, as"
                      + " reconstruct --archive reads it): history beyond the topic's retention.")
                  .stream())
          .toList();

  /** The settings without the stream app and the archive, only local names allowed. */
  UiSettings(String bootstrap, String topicPrefix, String host, int port, String token) {
    this(
        bootstrap,
        topicPrefix,
        host,
        port,
        token,
        null,
        null,
        null,
        HostCheck.of(List.of()),
        false,
        Map.of());
  }

  /**
   * Refuses a UI without a token: the pages show captured prompts, and on loopback too any local
   * process or page that reaches the port would read them.
   */
  UiSettings {
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(hosts, "hosts");
    if (token == null || token.length() < MIN_TOKEN_LENGTH) {
      throw new IllegalArgumentException(
          "the UI needs a token of at least " + MIN_TOKEN_LENGTH + " characters");
    }
    tenantTokens = Map.copyOf(tenantTokens);
    for (Map.Entry<String, String> t : tenantTokens.entrySet()) {
      if (t.getKey().length() < MIN_TOKEN_LENGTH || t.getKey().equals(token)) {
        throw new IllegalArgumentException(
            "tenant "
                + t.getValue()
                + ": a tenant's token has at least "
                + MIN_TOKEN_LENGTH
                + " characters and is not the UI's own");
      }
      if (!TenantSource.isTenantId(t.getValue())) {
        throw new IllegalArgumentException("not a tenant id: '" + t.getValue() + "'");
      }
    }
  }

  /**
   * Reads {@value #TENANT_TOKENS_ENV}: {@code TENANT=TOKEN} pairs, comma separated, each token
   * distinct.
   */
  static Map<String, String> tenantTokens(String value) throws UsageException {
    Map<String, String> tokens = new java.util.HashMap<>();
    if (value == null || value.isBlank()) {
      return tokens;
    }
    for (String pair : value.split(",")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new UsageException(
            TENANT_TOKENS_ENV + ": expected TENANT=TOKEN, got a pair without '='");
      }
      if (tokens.put(pair.substring(eq + 1).strip(), pair.substring(0, eq).strip()) != null) {
        throw new UsageException(TENANT_TOKENS_ENV + ": two tenants share a token");
      }
    }
    return tokens;
  }

  /**
   * A random token (24 bytes, URL-safe Base64) for a UI on loopback started without one, as Jupyter
   * does: the login URL printed at start carries it.
   */
  static String generatedToken() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static final SecureRandom RANDOM = new SecureRandom();

  static UiSettings from(CommandLine line, Map<String, String> env) throws UsageException {
    String token = line.value("token").orElse(env.get(TOKEN_ENV));
    if (token != null && token.isBlank()) {
      token = null;
    }
    if (token != null && token.length() < MIN_TOKEN_LENGTH) {
      throw new UsageException(
          "the token must be at least " + MIN_TOKEN_LENGTH + " characters, got " + token.length());
    }
    String host = line.string("host", DEFAULT_HOST);
    if (token == null && !loopback(host)) {
      throw new UsageException(
          "--host "
              + host
              + " is reachable beyond this machine: give a token (--token, or "
              + TOKEN_ENV
              + ") so that only its holders see the captured prompts");
    }
    boolean generated = token == null;
    if (generated) {
      token = generatedToken();
    }
    HostCheck hosts;
    try {
      String allowed = env.get(HostCheck.SETTING.name());
      hosts =
          allowed == null || allowed.isBlank()
              ? HostCheck.of(List.of())
              : HostCheck.SETTING.type().parse(HostCheck.SETTING.name(), allowed);
    } catch (ConfigException e) {
      throw new UsageException(e.getMessage());
    }
    int port = (int) line.longValue("port", DEFAULT_PORT, 0);
    if (port > 65535) {
      throw new UsageException("--port must be at most 65535, got " + port);
    }
    String streamApp = line.value("stream-app").orElse(env.get(LiveState.STREAM_APP_ENV));
    if (streamApp != null && streamApp.isBlank()) {
      streamApp = null;
    }
    if (streamApp != null && !streamApp.matches("https?://[^/?#]+/?")) {
      throw new UsageException(
          "--stream-app must be http://HOST:PORT (the stream app's metrics endpoint), got "
              + streamApp);
    }
    String stateToken = env.get(LiveState.TOKEN_ENV);
    ArchiveSettings archive =
        ArchiveOptions.settings(
            line, env, List.of("archive-table", "archive-max-rows", "archive-refresh"));
    ArchiveHistory.Settings history = null;
    if (archive != null) {
      String table = line.string("archive-table", ArchivedTopic.NAMESPACE + ".session_deltas");
      if (!table.contains(".")) {
        throw new UsageException("--archive-table must be NAMESPACE.NAME, got " + table);
      }
      history =
          new ArchiveHistory.Settings(
              archive,
              table,
              line.longValue("archive-max-rows", ArchiveHistory.DEFAULT_MAX_ROWS, 1),
              java.time.Duration.ofSeconds(
                  line.longValue(
                      "archive-refresh", ArchiveHistory.DEFAULT_REFRESH.toSeconds(), 1)));
    }
    Map<String, String> tenantTokens = tenantTokens(env.get(TENANT_TOKENS_ENV));
    try {
      return new UiSettings(
          TopicOptions.bootstrap(line),
          TopicOptions.topicPrefix(line),
          host,
          port,
          token,
          streamApp,
          stateToken == null || stateToken.isBlank() ? null : stateToken,
          history,
          hosts,
          generated,
          tenantTokens);
    } catch (IllegalArgumentException e) {
      throw new UsageException(TENANT_TOKENS_ENV + ": " + e.getMessage());
    }
  }

  /** The settings with the tokens hidden: a record's own would print them. */
  @Override
  public String toString() {
    return "UiSettings[bootstrap="
        + bootstrap
        + ", topicPrefix="
        + topicPrefix
        + ", host="
        + host
        + ", port="
        + port
        + ", token=<hidden>, streamApp="
        + streamApp
        + ", stateToken="
        + (stateToken == null ? "none" : "<hidden>")
        + ", archive="
        + (archive != null)
        + ", hosts="
        + hosts
        + ", tenants with a token="
        + new java.util.TreeSet<>(tenantTokens.values())
        + "]";
  }

  /** Whether every address {@code host} names is a loopback address. */
  static boolean loopback(String host) throws UsageException {
    try {
      InetAddress[] all = InetAddress.getAllByName(host);
      for (InetAddress a : all) {
        if (!a.isLoopbackAddress()) {
          return false;
        }
      }
      return all.length > 0;
    } catch (UnknownHostException e) {
      throw new UsageException("--host " + host + " is not an address of this machine");
    }
  }
}
