package io.prefixlog.streams.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.delta.BaseInfo;
import io.prefixlog.core.delta.BaseLog;
import io.prefixlog.core.delta.SessionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class StateEndpointTest {
  private static final String TOKEN = "a-state-token-of-32-characters!!";
  private static final String SHA_A = "aa".repeat(32);
  private static final String SHA_B = "bb".repeat(32);

  @ParameterizedTest
  @CsvSource({
    "/state/sessions/0123abcd, 0123abcd",
    "/state/sessions/a%20b, a b",
    "/state/sessions/a+b, a+b",
    "/state/sessions/caf%C3%A9, café",
  })
  void shouldDecodeTheSessionKeyFromThePath(String path, String key) {
    // When
    Optional<String> parsed = StateEndpoint.sessionKey(path);

    // Then
    assertThat(parsed).contains(key);
  }

  @ParameterizedTest
  @ValueSource(strings = {"0123abcd", "a b", "a+b", "café", "50%", "k=v&x?y#z"})
  void shouldReadBackTheKeyThatPathOfAsksFor(String key) {
    // When
    Optional<String> parsed = StateEndpoint.sessionKey(StateEndpoint.pathOf(key));

    // Then
    assertThat(parsed).contains(key);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/state/sessions/",
        "/state/sessions/a/b",
        "/state/sessions/a%2Fb",
        "/state/session/abc",
        "/state/sessions/%zz",
      })
  void shouldNameNoKeyForAPathThatHoldsNoneOrMoreThanOne(String path) {
    // When
    Optional<String> parsed = StateEndpoint.sessionKey(path);

    // Then
    assertThat(parsed).isEmpty();
  }

  @Test
  void shouldRefuseAKeyLongerThanTheLimit() {
    // Given
    String longest = "k".repeat(StateEndpoint.MAX_KEY_LENGTH);

    // When / Then
    assertThat(StateEndpoint.sessionKey(StateEndpoint.PATH + longest)).contains(longest);
    assertThat(StateEndpoint.sessionKey(StateEndpoint.PATH + longest + "k")).isEmpty();
  }

  @Test
  void shouldAskTheSourceWithTheKeyAndWhetherTheQueryWasForwarded() {
    // Given
    List<String> asked = new ArrayList<>();
    StateEndpoint endpoint =
        new StateEndpoint(
            (key, forwarded) -> {
              asked.add(key + " " + forwarded);
              return StateAnswer.problem(404, key, StateAnswer.UNKNOWN, "none");
            },
            TOKEN);

    // When
    StateAnswer direct = endpoint.answer("GET", "/state/sessions/k1", "Bearer " + TOKEN, false);
    StateAnswer forwarded = endpoint.answer("GET", "/state/sessions/k2", "Bearer " + TOKEN, true);

    // Then
    assertThat(asked).containsExactly("k1 false", "k2 true");
    assertThat(direct.status()).isEqualTo(404);
    assertThat(direct.text())
        .isEqualTo("{\"session_key\":\"k1\",\"status\":\"unknown\",\"reason\":\"none\"}");
    assertThat(forwarded.text())
        .isEqualTo("{\"session_key\":\"k2\",\"status\":\"unknown\",\"reason\":\"none\"}");
  }

  @Test
  void shouldRefuseAQueryWithoutTheTokenOrNotAGetBeforeAskingTheSource() {
    // Given
    List<String> asked = new ArrayList<>();
    StateEndpoint endpoint =
        new StateEndpoint(
            (key, forwarded) -> {
              asked.add(key);
              return StateAnswer.problem(404, key, StateAnswer.UNKNOWN, "none");
            },
            TOKEN);

    // When
    StateAnswer none = endpoint.answer("GET", "/state/sessions/k", null, false);
    StateAnswer wrong = endpoint.answer("GET", "/state/sessions/k", "Bearer " + TOKEN + "x", false);
    StateAnswer basic = endpoint.answer("GET", "/state/sessions/k", "Basic " + TOKEN, false);
    StateAnswer post = endpoint.answer("POST", "/state/sessions/k", "Bearer " + TOKEN, false);
    StateAnswer bad = endpoint.answer("GET", "/state/sessions/a/b", "Bearer " + TOKEN, false);

    // Then
    assertThat(asked).isEmpty();
    assertThat(List.of(none.status(), wrong.status(), basic.status(), post.status(), bad.status()))
        .containsExactly(401, 401, 401, 405, 400);
    assertThat(none.text())
        .isEqualTo(
            "{\"status\":\"unauthorized\",\"reason\":\"send Authorization:"
                + " Bearer with PREFIXLOG_STATE_TOKEN\"}");
    assertThat(bad.text())
        .isEqualTo(
            "{\"status\":\"bad_request\",\"reason\":\"the path is"
                + " /state/sessions/{session_key}: one URL-encoded key of 1 to 512 characters,"
                + " without '/'\"}");
  }

  @Test
  void shouldAnswerWithoutATokenWhenNoneIsConfigured() {
    // Given
    StateEndpoint endpoint =
        new StateEndpoint(
            (key, forwarded) -> StateAnswer.problem(404, key, StateAnswer.UNKNOWN, "none"), null);

    // When
    StateAnswer answer = endpoint.answer("GET", "/state/sessions/k", null, false);

    // Then
    assertThat(answer.status()).isEqualTo(404);
  }

  @Test
  void shouldWriteAStateAsMetadataWithItsExpiriesInStreamTime() {
    // Given: a session on turn 7 of its chain, two bases kept (the newest a delta on the other)
    long lastSeen = 1_764_000_000_000L;
    SessionState state =
        new SessionState(
            "0123abcd-chain",
            8,
            lastSeen,
            List.of(
                new BaseInfo(7, SHA_B, 1, 200, new long[] {1L}),
                new BaseInfo(5, SHA_A, 0, 150, new long[] {2L})),
            BaseLog.of(List.of(new BaseLog.Entry(5, true), new BaseLog.Entry(7, false))));

    // When
    StateAnswer answer =
        StateAnswer.of(
            SessionStateView.of(
                "sess", "10.0.0.2:9464", 3, state, Duration.ofMinutes(30), Duration.ofDays(7)));

    // Then
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.text())
        .isEqualTo(
            "{\"session_key\":\"sess\",\"host\":\"10.0.0.2:9464\",\"partition\":3,"
                + "\"chain\":\"0123abcd-chain\",\"turns\":7,\"next_seq\":8,"
                + "\"last_seen_ms\":1764000000000,\"dormant\":false,"
                + "\"bases_expire_ms\":1764001800000,\"state_expires_ms\":1764604800000,"
                + "\"base_bytes\":350,\"bases\":["
                + "{\"seq\":7,\"sha256\":\""
                + SHA_B
                + "\",\"chain_depth\":1,\"length\":200},"
                + "{\"seq\":5,\"sha256\":\""
                + SHA_A
                + "\",\"chain_depth\":0,\"length\":150}],"
                + "\"base_log\":[{\"seq\":5,\"whole\":true},{\"seq\":7,\"whole\":false}]}");
  }

  @Test
  void shouldWriteADormantStateWithoutBasesOrTheirExpiry() {
    // Given
    SessionState dormant =
        new SessionState(
                "0123abcd-chain", 3, 1_000L, List.of(new BaseInfo(2, SHA_A, 0, 9, new long[0])))
            .dormant();

    // When
    StateAnswer answer =
        StateAnswer.of(
            SessionStateView.of(
                "sess", "h:1", 0, dormant, Duration.ofMinutes(30), Duration.ofDays(7)));

    // Then
    assertThat(answer.text())
        .isEqualTo(
            "{\"session_key\":\"sess\",\"host\":\"h:1\",\"partition\":0,"
                + "\"chain\":\"0123abcd-chain\",\"turns\":2,\"next_seq\":3,"
                + "\"last_seen_ms\":1000,\"dormant\":true,"
                + "\"state_expires_ms\":604801000,\"base_bytes\":0,\"bases\":[],\"base_log\":[]}");
  }
}
