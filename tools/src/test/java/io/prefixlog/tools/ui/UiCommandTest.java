package io.prefixlog.tools.ui;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@code prefixlog ui} refuses before it serves anything. */
class UiCommandTest {
  private final CapturedTerminal console = new CapturedTerminal();

  @Test
  void shouldRefuseToServeBeyondLoopbackWithoutAToken() {
    // When
    int code = run(Map.of(), "--host", "0.0.0.0");

    // Then
    assertThat(code).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog ui: --host 0.0.0.0 is reachable beyond this machine: give a token (--token,"
                + " or PREFIXLOG_UI_TOKEN) so that only its holders see the captured prompts\n");
  }

  @Test
  void shouldRefuseAShortToken() {
    // When
    int code = run(Map.of("PREFIXLOG_UI_TOKEN", "short"), "--host", "0.0.0.0");

    // Then
    assertThat(code).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .isEqualTo("prefixlog ui: the token must be at least 16 characters, got 5\n");
  }

  @Test
  void shouldTakeTheTokenFromTheEnvironmentAndServeOnLoopbackByDefault() throws Exception {
    // When
    UiSettings settings =
        UiSettings.from(
            io.prefixlog.cli.CommandLine.parse(
                "prefixlog ui", UiSettings.OPTIONS, "--host", "0.0.0.0"),
            Map.of("PREFIXLOG_UI_TOKEN", "a-token-of-20-chars!"));
    UiSettings defaults =
        UiSettings.from(
            io.prefixlog.cli.CommandLine.parse("prefixlog ui", UiSettings.OPTIONS), Map.of());

    // Then
    assertThat(settings.token()).isEqualTo("a-token-of-20-chars!");
    assertThat(settings.tokenGenerated()).isFalse();
    assertThat(settings.toString()).doesNotContain("a-token-of-20-chars!");
    // Without a token, on loopback, one is generated: the UI never serves without
    assertThat(defaults.tokenGenerated()).isTrue();
    assertThat(defaults.token()).hasSize(32).matches("[A-Za-z0-9_-]+");
    assertThat(defaults)
        .isEqualTo(
            new UiSettings(
                "127.0.0.1:9092",
                "prefixlog.",
                "127.0.0.1",
                8470,
                defaults.token(),
                null,
                null,
                null,
                defaults.hosts(),
                true,
                Map.of()));
    assertThat(
            UiSettings.from(
                    io.prefixlog.cli.CommandLine.parse("prefixlog ui", UiSettings.OPTIONS),
                    Map.of())
                .token())
        .isNotEqualTo(defaults.token());
  }

  @Test
  void shouldTakeTheStreamAppUrlAndItsStateTokenFromTheEnvironment() throws Exception {
    // When
    UiSettings fromEnv =
        UiSettings.from(
            io.prefixlog.cli.CommandLine.parse("prefixlog ui", UiSettings.OPTIONS),
            Map.of(
                "PREFIXLOG_UI_STREAM_APP", "http://stream-app:9464",
                "PREFIXLOG_STATE_TOKEN", "a-state-token-of-24-ch!"));
    UiSettings fromOption =
        UiSettings.from(
            io.prefixlog.cli.CommandLine.parse(
                "prefixlog ui", UiSettings.OPTIONS, "--stream-app", "http://127.0.0.1:9464/"),
            Map.of());

    // Then
    assertThat(fromEnv.streamApp()).isEqualTo("http://stream-app:9464");
    assertThat(fromEnv.stateToken()).isEqualTo("a-state-token-of-24-ch!");
    assertThat(fromOption.streamApp()).isEqualTo("http://127.0.0.1:9464/");
    assertThat(fromOption.stateToken()).isNull();
    assertThat(fromOption.archive()).isNull();
  }

  @Test
  void shouldReadTenantTokensAndRefuseShortSharedOrTheUisOwn() throws Exception {
    // When
    UiSettings settings =
        UiSettings.from(
            io.prefixlog.cli.CommandLine.parse("prefixlog ui", UiSettings.OPTIONS),
            Map.of(
                "PREFIXLOG_UI_TOKEN", "the-uis-own-token-0123",
                "PREFIXLOG_UI_TENANT_TOKENS",
                    "team-a=team-a-token-012345, c-0a1b=credential-token-0123"));

    // Then: tokens are kept, never printed
    assertThat(settings.tenantTokens())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("team-a-token-012345", "team-a", "credential-token-0123", "c-0a1b"));
    assertThat(settings.toString()).doesNotContain("token-0123").contains("[c-0a1b, team-a]");
    for (String bad :
        List.of(
            "team-a=short",
            "team-a=same-token-0123456,team-b=same-token-0123456",
            "team-a=the-uis-own-token-0123",
            "team a=a-long-enough-token-01",
            "no-equals-sign")) {
      assertThat(
              run(
                  Map.of(
                      "PREFIXLOG_UI_TOKEN",
                      "the-uis-own-token-0123",
                      "PREFIXLOG_UI_TENANT_TOKENS",
                      bad)))
          .as(bad)
          .isEqualTo(Command.USAGE);
      assertThat(console.err()).contains("PREFIXLOG_UI_TENANT_TOKENS");
    }
  }

  @Test
  void shouldRefuseAStreamAppThatIsNotAnHttpBaseUrlAndArchiveOptionsWithoutArchive() {
    // When
    int badUrl = run(Map.of(), "--stream-app", "stream-app:9464");
    String badUrlErr = console.err();
    console.reset();
    int noArchive = run(Map.of(), "--archive-max-rows", "10");

    // Then
    assertThat(badUrl).isEqualTo(Command.USAGE);
    assertThat(badUrlErr)
        .isEqualTo(
            "prefixlog ui: --stream-app must be http://HOST:PORT (the stream app's metrics"
                + " endpoint), got stream-app:9464\n");
    assertThat(noArchive).isEqualTo(Command.USAGE);
    assertThat(console.err()).isEqualTo("prefixlog ui: --archive-max-rows needs --archive\n");
  }

  private int run(Map<String, String> env, String... args) {
    Terminal terminal = console.terminal(env);
    return new UiCommand(terminal).run(args);
  }
}
