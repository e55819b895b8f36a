package io.prefixlog.bridge.proxy;

import io.prefixlog.core.chunk.ChunkLookups;
import io.prefixlog.core.session.SessionSampler;
import io.prefixlog.schemas.request.PromptChunks;
import java.util.List;
import java.util.Objects;

/**
 * Two-stage capture sampling, decided on the publisher thread once the exchange is over: stage one
 * keeps the bodies of the sessions {@link SessionSampler} selects (PREFIXLOG_SAMPLE_SESSIONS); the
 * force rules keep a body whatever its session's draw (an error response, a listed model, a path
 * under a listed prefix); every other request becomes a metadata-only event whose body is reduced
 * to its chunk hashes (stage two: metadata for everything).
 *
 * <p>Before all of these: the body of a request the engine refused as unauthenticated or forbidden
 * (401, 403) is never kept, nor its chunk hashes. Anyone who reaches the proxy can send one, so
 * keeping it would let a client without a credential write prompts into the store, and its hashes
 * would answer whether a guessed prompt matches a stored one.
 *
 * <p>A forced body of an unselected session is a turn of its own (the stream app saw no earlier
 * body of the session, so it is a keyframe, or a delta against another forced turn): it always
 * rebuilds, and a selected session is never missing a turn. Thread-safe.
 */
final class CaptureSampling {
  private final SessionSampler sampler;
  private final boolean keepErrors;
  private final List<String> keepModels;
  private final List<String> keepPaths;
  private final ChunkLookups hasher;

  /**
   * @param hasher computes the chunk hashes of a sampled-out body, or null to send none (then the
   *     request has no chunk lookup)
   */
  CaptureSampling(
      SessionSampler sampler,
      boolean keepErrors,
      List<String> keepModels,
      List<String> keepPaths,
      ChunkLookups hasher) {
    this.sampler = Objects.requireNonNull(sampler, "sampler");
    this.keepErrors = keepErrors;
    this.keepModels = List.copyOf(keepModels);
    this.keepPaths = List.copyOf(keepPaths);
    this.hasher = hasher;
  }

  /** As the {@code PREFIXLOG_SAMPLE_*} settings say. */
  static CaptureSampling of(SamplingConfig sampling) {
    return new CaptureSampling(
        new SessionSampler(sampling.sessions(), sampling.seed()),
        sampling.keepErrors(),
        sampling.keepModels(),
        sampling.keepPaths(),
        sampling.hashChunks() ? new ChunkLookups(sampling.chunkSizeBytes()) : null);
  }

  /** Why a body is kept, or {@link Decision#SAMPLED_OUT}. */
  enum Decision {
    REFUSED,
    /** Over its client's capture budget ({@link ClientCaptureRate}): metadata only. */
    CLIENT_RATE,
    SESSION_SELECTED,
    FORCED,
    SAMPLED_OUT
  }

  /**
   * @param status the response status, null when none arrived
   * @param error the exchange's failure classification, null when it completed
   */
  Decision decide(String sessionKey, String model, String path, Integer status, String error) {
    if (refusedByEngine(status)) {
      return Decision.REFUSED;
    }
    if (sampler.keeps(sessionKey)) {
      return Decision.SESSION_SELECTED;
    }
    if (keepErrors && (error != null || status == null || status >= 400)) {
      return Decision.FORCED;
    }
    if (model != null && keepModels.contains(model)) {
      return Decision.FORCED;
    }
    for (String prefix : keepPaths) {
      if (path.startsWith(prefix)) {
        return Decision.FORCED;
      }
    }
    return Decision.SAMPLED_OUT;
  }

  /** Whether the engine refused the request as unauthenticated (401) or forbidden (403). */
  static boolean refusedByEngine(Integer status) {
    return status != null && (status == 401 || status == 403);
  }

  /** The chunk hashes of a body left out, or null when this bridge sends none. */
  PromptChunks chunks(byte[] body, boolean utf8) {
    return hasher == null ? null : hasher.chunks(body, utf8);
  }
}
