package io.prefixlog.tools.erase;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.session.TenantSource;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line of {@code prefixlog erase}: what it accepts and what it refuses, and why. */
class EraseCommandTest {
  private static final String KEY = "0123456789abcdef0123456789abcdef";
  private static final String SECRET = "a-deployment-secret-0123456789";

  private final CapturedTerminal console = new CapturedTerminal();

  @Test
  void shouldRefuseToRunWithoutASession() {
    assertThat(run(Map.of(), "--bootstrap", "127.0.0.1:1")).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .contains("name a session: --session KEY, --session-id ID, --user NAME, or a tenant");
  }

  @Test
  void shouldRefuseSomethingThatIsNotASessionKey() {
    assertThat(run(Map.of(), "--session", "conversation-42")).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .contains("--session conversation-42: a session_key is 32 lower-case hex");
  }

  @Test
  void shouldRefuseToHashAnIdWithoutTheDeploymentsSecret() {
    // Keys hashed with another secret would find nothing, and the report would say "erased".
    assertThat(run(Map.of(), "--session-id", "conversation-42")).isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--session-id and --user need PREFIXLOG_SESSION_SECRET");
  }

  @Test
  void shouldHashIdsAndUsersAsTheProxyDoes() throws UsageException {
    // Given
    SessionKeyDeriver deriver =
        new SessionKeyDeriver(
            SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS);

    // When
    ErasureRequest settings =
        settings(
            Map.of("PREFIXLOG_SESSION_SECRET", SECRET),
            "--session",
            KEY,
            "--session-id",
            "conversation-42",
            "--user",
            "alice");

    // Then
    assertThat(settings.selection().keys())
        .containsExactly(
            KEY, deriver.keyOfSessionId("conversation-42"), deriver.keyOfUser("alice"));
    assertThat(settings.selection().kvSessionIds())
        .containsExactly(
            KEY,
            deriver.keyOfSessionId("conversation-42"),
            deriver.keyOfUser("alice"),
            "conversation-42",
            "alice");
    assertThat(settings.selection().before()).isNull();
  }

  @Test
  void shouldHashIdsInTheNamespaceOfTheTenantTheBridgeGaveThem() throws UsageException {
    // Given: the keys the bridge derives under PREFIXLOG_TENANT=header:x-tenant and =credential
    SessionKeyDeriver deriver =
        new SessionKeyDeriver(
            SECRET.getBytes(StandardCharsets.UTF_8), SessionKeyDeriver.DEFAULT_HEADERS);
    Map<String, String> headers =
        Map.of("x-session-id", "conversation-42", "x-tenant", "team-a", "x-api-key", "sk-a");
    String byHeader = new TenantSource("x-tenant", false).tenantOf(headers, deriver);
    String byCredential = new TenantSource(null, true).tenantOf(headers, deriver);

    // When
    ErasureRequest named =
        settings(
            Map.of("PREFIXLOG_SESSION_SECRET", SECRET),
            "--session-id",
            "conversation-42",
            "--tenant",
            "team-a");
    ErasureRequest credential =
        settings(
            Map.of(
                "PREFIXLOG_SESSION_SECRET", SECRET, "PREFIXLOG_TENANT_CREDENTIAL", "Bearer sk-a"),
            "--user",
            "alice",
            "--tenant-credential");

    // Then
    assertThat(named.selection().keys())
        .containsExactly(deriver.derive(byHeader, headers, BodyFields.EMPTY, null, null).key())
        .doesNotContain(deriver.keyOfSessionId("conversation-42"));
    assertThat(credential.selection().keys())
        .containsExactly(deriver.keyOfUser(byCredential, "alice"));
    ErasureRequest wholeTenant =
        settings(Map.of("PREFIXLOG_SESSION_SECRET", SECRET), "--tenant", "team a");
    assertThat(wholeTenant.selection().keys()).isEmpty();
    assertThat(wholeTenant.tenant())
        .isEqualTo(
            new ErasureRequest.NamedTenant(
                TenantSource.ofHeaderValue("team a", deriver), "--tenant team a"));
    assertThat(run(Map.of("PREFIXLOG_SESSION_SECRET", SECRET), "--tenant", "t", "--spill-dir", "x"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("a whole tenant's sessions are found on the broker");
    assertThat(
            run(Map.of("PREFIXLOG_SESSION_SECRET", SECRET), "--user", "a", "--tenant-credential"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("PREFIXLOG_TENANT_CREDENTIAL");
  }

  @Test
  void shouldReadBeforeAsAnInstantADateOrEpochMillis() throws UsageException {
    assertThat(
            settings(Map.of(), "--session", KEY, "--before", "2026-11-24T10:00:00Z")
                .selection()
                .before())
        .isEqualTo(Instant.parse("2026-11-24T10:00:00Z").toEpochMilli());
    assertThat(settings(Map.of(), "--session", KEY, "--before", "2026-11-24").selection().before())
        .isEqualTo(Instant.parse("2026-11-24T00:00:00Z").toEpochMilli());
    assertThat(
            settings(Map.of(), "--session", KEY, "--before", "1764000000000").selection().before())
        .isEqualTo(1_764_000_000_000L);
    assertThat(run(Map.of(), "--session", KEY, "--before", "last tuesday"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--before last tuesday: expected an ISO-8601 instant");
  }

  @Test
  void shouldRefuseArchiveOptionsWithoutArchive() {
    assertThat(run(Map.of(), "--session", KEY, "--catalog-uri", "jdbc:sqlite:/x"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--catalog-uri needs --archive");
  }

  @Test
  void shouldFailClearlyWhenKafkaIsNotThere() {
    // Given: nothing listens on port 1
    int code = run(Map.of(), "--session", KEY, "--bootstrap", "127.0.0.1:1");

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.err()).contains("cannot reach Kafka at 127.0.0.1:1");
  }

  @Test
  void shouldEraseFromASpillDirectoryWithoutKafka(@TempDir Path spill) {
    // Given: a proxy's spill directory (empty: the format is the bridge's SpillEraserTest's), and
    // no broker
    // When
    int code =
        run(
            Map.of(),
            "--session",
            KEY,
            "--spill-dir",
            spill.toString(),
            "--bootstrap",
            "127.0.0.1:1");

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(console.out()).contains("spill " + spill + ": 0 events of these sessions removed");
  }

  @Test
  void shouldFailOnASpillDirectoryThatIsNotThere(@TempDir Path dir) {
    assertThat(run(Map.of(), "--session", KEY, "--spill-dir", dir.resolve("nope").toString()))
        .isEqualTo(Command.FAILED);
    assertThat(console.err()).contains("no spill directory at " + dir.resolve("nope"));
  }

  @Test
  void shouldRefuseToCheckASpillDirectory(@TempDir Path spill) {
    assertThat(run(Map.of(), "--check", "--session", KEY, "--spill-dir", spill.toString()))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("--check does not look there");
  }

  @Test
  void shouldReadTheSinkTimeout() throws UsageException {
    assertThat(settings(Map.of(), "--session", KEY).sinkTimeout())
        .isEqualTo(EraseOptions.DEFAULT_SINK_TIMEOUT);
    assertThat(settings(Map.of(), "--session", KEY, "--sink-timeout", "5").sinkTimeout())
        .isEqualTo(java.time.Duration.ofSeconds(5));
  }

  private static ErasureRequest settings(Map<String, String> env, String... args)
      throws UsageException {
    return EraseOptions.from(CommandLine.parse("prefixlog erase", EraseOptions.all(), args), env);
  }

  private int run(Map<String, String> env, String... args) {
    Terminal terminal = console.terminal(env);
    return new EraseCommand(terminal).run(args);
  }
}
