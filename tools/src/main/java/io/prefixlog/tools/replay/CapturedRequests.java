package io.prefixlog.tools.replay;

import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.request.ResponseInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Collects the verified turns of a rebuild that a capture replay sends again. Only turns whose body
 * was rebuilt and matched its {@code body_sha256} arrive here ({@link
 * RebuildListener#onVerifiedTurn}); an erased turn never does.
 *
 * <p>Left out, and counted: turns of sessions outside the sample; turns that are not a {@code POST}
 * to {@code /v1/chat/completions} or {@code /v1/completions} or have no arrival time; bodies cut at
 * the capture limit (an engine would refuse the cut JSON); and turns an earlier capture replay sent
 * (their {@code User-Agent} is {@link #REPLAY_AGENT}), so that replaying through the capture proxy
 * and then replaying again does not send the traffic twice.
 */
final class CapturedRequests implements RebuildListener {
  /** The {@code User-Agent} product of a capture replay's requests. */
  static final String REPLAY_AGENT = "prefixlog-capture-replay";

  static final String CHAT_PATH = "/v1/chat/completions";
  static final String COMPLETIONS_PATH = "/v1/completions";

  private final SessionSample sample;
  private final List<CapturedRequest> requests = new ArrayList<>();
  private final Set<String> sessions = new HashSet<>();
  private final Set<String> unsampledSessions = new HashSet<>();
  private long unsampledTurns;
  private long notReplayable;
  private long truncated;
  private long earlierReplays;

  CapturedRequests(SessionSample sample) {
    this.sample = sample;
  }

  @Override
  public void onVerifiedTurn(String chainKey, long seq, DeltaRecord record, byte[] body) {
    String session = record.sessionKey();
    if (!sample.includes(session)) {
      unsampledTurns++;
      unsampledSessions.add(session);
      return;
    }
    String path = record.path();
    boolean api = CHAT_PATH.equals(path) || COMPLETIONS_PATH.equals(path);
    if (!api || !"POST".equalsIgnoreCase(record.method()) || record.ts() == null) {
      notReplayable++;
      return;
    }
    if (Boolean.TRUE.equals(record.truncated())) {
      truncated++;
      return;
    }
    String agent = record.userAgent();
    if (agent != null && agent.startsWith(REPLAY_AGENT + "/")) {
      earlierReplays++;
      return;
    }
    ResponseInfo response = record.response();
    Long prompt = record.promptTokens();
    Long cached = record.cachedTokens();
    if (prompt != null && cached == null) {
      cached = 0L; // vLLM omits zero; the stream app records it so, older records may not
    }
    requests.add(
        new CapturedRequest(
            session,
            seq,
            record.ts(),
            path,
            requestClass(path, record.model()),
            ReplayHeaders.replayable(record.headers(), record.sessionKeySource(), session),
            body,
            response == null ? null : response.latencyMs(),
            prompt,
            prompt == null ? null : cached));
    sessions.add(session);
  }

  /** The endpoint's short name and the model: what the comparison groups requests by. */
  static String requestClass(String path, String model) {
    String endpoint = CHAT_PATH.equals(path) ? "chat" : "completions";
    return model == null || model.isBlank()
        ? endpoint
        : String.format(Locale.ROOT, "%s %s", endpoint, model);
  }

  /** The requests to send, in arrival order ({@code ts}; ties by session, then turn). */
  List<CapturedRequest> ordered() {
    List<CapturedRequest> ordered = new ArrayList<>(requests);
    ordered.sort(
        Comparator.comparingLong(CapturedRequest::tsMs)
            .thenComparing(CapturedRequest::sessionKey)
            .thenComparingLong(CapturedRequest::seq));
    return ordered;
  }

  long sessions() {
    return sessions.size();
  }

  long unsampledSessions() {
    return unsampledSessions.size();
  }

  long unsampledTurns() {
    return unsampledTurns;
  }

  long notReplayable() {
    return notReplayable;
  }

  long truncated() {
    return truncated;
  }

  long earlierReplays() {
    return earlierReplays;
  }
}
