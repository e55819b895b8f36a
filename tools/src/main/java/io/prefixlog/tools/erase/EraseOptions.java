package io.prefixlog.tools.erase;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.session.TenantSource;
import io.prefixlog.tools.archive.ArchiveOptions;
import io.prefixlog.tools.topic.TopicOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The options of {@code prefixlog erase}, and the command line read into an {@link ErasureRequest}.
 */
final class EraseOptions {
  static final Duration DEFAULT_ACK_TIMEOUT = ErasureRequest.DEFAULT_ACK_TIMEOUT;
  static final Duration DEFAULT_SINK_TIMEOUT = ErasureRequest.DEFAULT_SINK_TIMEOUT;
  static final String DEFAULT_APPLICATION_ID = ErasureRequest.DEFAULT_APPLICATION_ID;

  /** Where {@code --tenant-credential} reads the credential of the tenant from. */
  static final String TENANT_CREDENTIAL_ENV = "PREFIXLOG_TENANT_CREDENTIAL";

  private EraseOptions() {}

  /** The command line read into a request. */
  static ErasureRequest from(CommandLine line, Map<String, String> env) throws UsageException {
    ErasureRequest.Builder s = ErasureRequest.builder();
    Map<String, String> sessions = new LinkedHashMap<>();
    Set<String> rawIds = new LinkedHashSet<>();
    for (String key : line.values("session")) {
      if (!key.matches("[0-9a-f]{32}")) {
        throw new UsageException(
            "--session " + key + ": a session_key is 32 lower-case hex digits");
      }
      sessions.putIfAbsent(key, "--session " + key);
    }
    List<String> ids = line.values("session-id");
    List<String> users = line.values("user");
    boolean tenanted = line.has("tenant") || line.has("tenant-credential");
    if (!ids.isEmpty() || !users.isEmpty() || tenanted) {
      SessionKeyDeriver deriver = deriver(env);
      String tenant = tenant(line, env, deriver);
      for (String id : ids) {
        sessions.putIfAbsent(deriver.keyOfSessionId(tenant, id), "--session-id (hashed)");
        rawIds.add(id);
      }
      for (String user : users) {
        sessions.putIfAbsent(deriver.keyOfUser(tenant, user), "--user (hashed)");
        rawIds.add(user);
      }
      if (tenanted && ids.isEmpty() && users.isEmpty()) {
        s.tenant = namedTenant(line, tenant);
      }
    }
    if (sessions.isEmpty() && s.tenant == null) {
      throw new UsageException(
          "name a session: --session KEY, --session-id ID, --user NAME, or a tenant: --tenant"
              + " NAME or --tenant-credential");
    }
    Long before = line.value("before").map(EraseOptions::instant).orElse(null);
    s.selection = Selection.of(sessions, rawIds, before);
    s.bootstrap = TopicOptions.bootstrap(line);
    s.topicPrefix = TopicOptions.topicPrefix(line);
    s.applicationId = line.string("application-id", DEFAULT_APPLICATION_ID);
    s.ackTimeout =
        Duration.ofSeconds(line.longValue("ack-timeout", DEFAULT_ACK_TIMEOUT.toSeconds(), 1));
    s.sinkTimeout =
        Duration.ofSeconds(line.longValue("sink-timeout", DEFAULT_SINK_TIMEOUT.toSeconds(), 0));
    s.keepRaw = line.has("keep-raw");
    s.check = line.has("check");
    s.spillDirs = line.values("spill-dir").stream().map(java.nio.file.Path::of).toList();
    if (s.tenant != null && !s.spillDirs.isEmpty()) {
      throw new UsageException(
          "--spill-dir erases sessions named by key or id; a whole tenant's sessions are found on"
              + " the broker");
    }
    if (s.check && !s.spillDirs.isEmpty()) {
      throw new UsageException(
          "--spill-dir erases from a bridge's spill directory; --check does not look there");
    }
    s.archive = ArchiveOptions.settings(line, env, List.of());
    return s.build();
  }

  /**
   * The deriver of the deployment's keys. An unset secret is refused rather than replaced by the
   * development one: keys derived with the wrong secret find nothing, and the report would say the
   * person's data is gone when it was never looked for.
   */
  private static SessionKeyDeriver deriver(Map<String, String> env) throws UsageException {
    String secret = env.get("PREFIXLOG_SESSION_SECRET");
    if (secret == null || secret.isEmpty()) {
      throw new UsageException(
          "--session-id and --user need PREFIXLOG_SESSION_SECRET, the bridge's secret (the"
              + " demo's is "
              + SessionKeyDeriver.DEV_SECRET
              + "): keys hashed with another secret would find nothing");
    }
    byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
    if (bytes.length < 16) {
      throw new UsageException("PREFIXLOG_SESSION_SECRET must be at least 16 bytes");
    }
    return new SessionKeyDeriver(bytes, SessionKeyDeriver.DEFAULT_HEADERS);
  }

  /**
   * The tenant id the bridge gave the sessions' requests ({@code PREFIXLOG_TENANT}), or null: from
   * {@code --tenant} (a tenant header's value) or {@code --tenant-credential} (the credential, read
   * from the environment so that it never shows in a process list).
   */
  private static String tenant(CommandLine line, Map<String, String> env, SessionKeyDeriver keys)
      throws UsageException {
    if (line.has("tenant-credential")) {
      if (line.has("tenant")) {
        throw new UsageException("name the tenant by --tenant or by --tenant-credential, not both");
      }
      String credential = env.get(TENANT_CREDENTIAL_ENV);
      if (credential == null || credential.isBlank()) {
        throw new UsageException(
            "--tenant-credential reads the credential from " + TENANT_CREDENTIAL_ENV);
      }
      return TenantSource.ofCredential(credential, keys);
    }
    return line.value("tenant").map(value -> TenantSource.ofHeaderValue(value, keys)).orElse(null);
  }

  private static ErasureRequest.NamedTenant namedTenant(CommandLine line, String tenant) {
    return new ErasureRequest.NamedTenant(
        tenant,
        line.has("tenant-credential")
            ? "--tenant-credential (hashed)"
            : "--tenant " + line.value("tenant").orElseThrow());
  }

  private static Long instant(String text) {
    String t = text.trim();
    try {
      if (t.matches("\\d{1,15}")) {
        return Long.parseLong(t);
      }
      if (t.matches("\\d{4}-\\d{2}-\\d{2}")) {
        return LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
      }
      return Instant.parse(t).toEpochMilli();
    } catch (DateTimeParseException | NumberFormatException e) {
      throw new IllegalArgumentException(
          "--before "
              + text
              + ": expected an ISO-8601 instant (2026-11-24T10:00:00Z), a date (2026-11-24) or"
              + " epoch milliseconds");
    }
  }

  /** The options, in the order the help lists them. */
  static List<Option> all() {
    List<Option> all = new ArrayList<>();
    all.add(
        Option.value("session", "KEY", null, "A session_key to erase (repeatable).").repeatable());
    all.add(
        Option.value(
                "session-id",
                "ID",
                null,
                "A session id as the client sent it (a session header or the body's session_id),"
                    + " hashed with PREFIXLOG_SESSION_SECRET (repeatable).")
            .repeatable());
    all.add(
        Option.value(
                "user",
                "NAME",
                null,
                "The body's user field of a session without a session id, hashed likewise"
                    + " (repeatable).")
            .repeatable());
    all.add(
        Option.value(
            "tenant",
            "NAME",
            "none",
            "A tenant (PREFIXLOG_TENANT), as the gateway sent its header: alone, every session"
                + " of the tenant is erased (those with a kept turn, found on the delta topic);"
                + " with --session-id or --user, their values are that tenant's ids."));
    all.add(
        Option.flag(
            "tenant-credential",
            "As --tenant, for the tenant of the credential in "
                + TENANT_CREDENTIAL_ENV
                + " (PREFIXLOG_TENANT=credential), hashed as the bridge hashes it."));
    all.add(
        Option.value(
            "before",
            "TIME",
            "all chains",
            "Only chains whose last turn came before TIME (ISO-8601 instant, a date meaning its"
                + " start in UTC, or epoch milliseconds): each turn repeats the chain's earlier"
                + " ones, so only whole chains can go."));
    all.add(TopicOptions.BOOTSTRAP);
    all.add(TopicOptions.topicPrefix("Prefix of every topic."));
    all.add(
        Option.value(
            "application-id",
            "ID",
            DEFAULT_APPLICATION_ID,
            "The stream app's PREFIXLOG_APPLICATION_ID (its consumer group and internal topics)."));
    all.add(
        Option.value(
            "ack-timeout",
            "SECONDS",
            Long.toString(DEFAULT_ACK_TIMEOUT.toSeconds()),
            "How long to wait for the stream app's acknowledgements."));
    all.add(
        Option.value(
            "sink-timeout",
            "SECONDS",
            Long.toString(DEFAULT_SINK_TIMEOUT.toSeconds()),
            "With --archive: how long to wait for the archive's sink to commit the sessions'"
                + " records it has not archived yet (its lag), before deleting their rows; with"
                + " --check, for its commit in progress. When it runs out, the rows archived so far"
                + " are deleted, the rest is reported \"pending: sink behind\" (exit code 1): run"
                + " erase again once the sink has caught up."));
    all.add(
        Option.flag(
            "keep-raw",
            "Do not delete the processed raw requests (they then stay until the raw topic's"
                + " retention, PREFIXLOG_RAW_RETENTION)."));
    all.add(
        Option.flag(
            "check",
            "Change nothing: count the records on the broker that still name the sessions, per"
                + " topic (exit code 0 when there are none)."));
    all.add(
        Option.value(
                "spill-dir",
                "DIR",
                null,
                "Erase the sessions from a capture proxy's spill directory (its"
                    + " PREFIXLOG_SPILL_DIR, on its host, with the proxy stopped) and do nothing"
                    + " else: the spilled events are rewritten without theirs, every other unsent"
                    + " event kept byte for byte, and their pieces of quarantined spill bytes are"
                    + " zeroed (repeatable). Run it before the erasure of the topics.")
            .repeatable());
    all.addAll(
        ArchiveOptions.options(
            "Also erase the sessions from the Iceberg archive (or, with --check, look there)."));
    all.add(Option.flag("progress", "Show progress bars even when stderr is not a terminal."));
    return List.copyOf(all);
  }
}
