package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigType;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import io.prefixlog.core.session.SessionSampler;
import java.util.List;

/**
 * Capture sampling ({@link CaptureSampling}): the share of sessions whose bodies are kept, the seed
 * of the draw, the rules that keep a body whatever the draw, the chunk hashes of the others, and
 * how many body bytes one client may have kept ({@link ClientCaptureRate}).
 */
public record SamplingConfig(
    double sessions,
    String seed,
    boolean keepErrors,
    List<String> keepModels,
    List<String> keepPaths,
    boolean hashChunks,
    int chunkSizeBytes,
    long clientRate,
    long clientBurst) {
  /** Plain comma-separated items (model names, path prefixes), trimmed, empty ones dropped. */
  private static final ConfigType<List<String>> ITEMS =
      ConfigTypes.strings(
          (key, items) -> items.stream().map(String::trim).filter(item -> !item.isEmpty()).toList(),
          "items, comma separated");

  public static final ConfigKey<Double> SESSIONS =
      ConfigKey.of("PREFIXLOG_SAMPLE_SESSIONS", ConfigTypes.decimal(0, 1))
          .defaultValue(1.0)
          .doc(
              "share of sessions whose request bodies are kept (1: every body). A session is kept"
                  + " when the first 53 bits of HMAC-SHA-256(`PREFIXLOG_SAMPLE_SEED`, session key),"
                  + " divided by 2^53, are below the share: every bridge and restart decides the"
                  + " same, a session is whole or absent. The other requests are sent as"
                  + " metadata-only events (`body_omitted: sampled_out`) with their chunk hashes");

  public static final ConfigKey<String> SEED =
      ConfigKey.of("PREFIXLOG_SAMPLE_SEED", ConfigTypes.text())
          .defaultValue(SessionSampler.DEFAULT_SEED)
          .doc(
              "HMAC key of the session sampling draw; the same on every bridge (another seed"
                  + " draws another sample of the same share)");

  public static final ConfigKey<Boolean> KEEP_ERRORS =
      ConfigKey.of("PREFIXLOG_SAMPLE_KEEP_ERRORS", ConfigTypes.bool())
          .defaultValue(true)
          .doc(
              "keep the body of every failed request (status ≥ 400, or no response) whatever its"
                  + " session's draw; never that of a request the engine refused (401, 403),"
                  + " which is always metadata only");

  public static final ConfigKey<List<String>> KEEP_MODELS =
      ConfigKey.of("PREFIXLOG_SAMPLE_KEEP_MODELS", ITEMS)
          .defaultValue(List.of())
          .documentedDefault("none")
          .doc("models whose request bodies are always kept (the body's `model`, exact match)");

  public static final ConfigKey<List<String>> KEEP_PATHS =
      ConfigKey.of("PREFIXLOG_SAMPLE_KEEP_PATHS", ITEMS)
          .defaultValue(List.of())
          .documentedDefault("none")
          .doc("request path prefixes whose bodies are always kept (`/v1/completions`)");

  public static final ConfigKey<Boolean> HASH_CHUNKS =
      ConfigKey.of("PREFIXLOG_SAMPLE_HASH_CHUNKS", ConfigTypes.bool())
          .defaultValue(true)
          .doc(
              "hash a sampled-out body into chunk hashes on the publisher thread (not the"
                  + " request path), so `chunk.lookups` still covers every request; `false` sends"
                  + " metadata only");

  public static final ConfigKey<Long> CHUNK_SIZE_BYTES = CommonKeys.CHUNK_SIZE_BYTES;

  public static final ConfigKey<Long> CLIENT_RATE =
      ConfigKey.of("PREFIXLOG_CAPTURE_CLIENT_RATE", ConfigTypes.size(0, 1L << 40))
          .defaultValue(0L)
          .documentedDefault("0 (no limit)")
          .doc(
              "body bytes a second that one client may have kept, averaged by a bucket of"
                  + " `PREFIXLOG_CAPTURE_CLIENT_BURST`; a body over its client's budget is sent as"
                  + " a metadata-only event (the request is proxied as always), counted as"
                  + " prefixlog_proxy_sampling_decisions_total{decision=\"client_rate\"}. A client is"
                  + " the hash of its credential header (`Authorization`, `X-Api-Key`, `Api-Key`),"
                  + " never stored, or without one its address: users behind one gateway that"
                  + " passes no credential share one budget");

  public static final ConfigKey<Long> CLIENT_BURST =
      ConfigKey.of("PREFIXLOG_CAPTURE_CLIENT_BURST", ConfigTypes.size(1024, 1L << 40))
          .defaultValue(64L << 20)
          .doc(
              "body bytes one client may have kept at once under `PREFIXLOG_CAPTURE_CLIENT_RATE`:"
                  + " a larger body is never kept, so keep it above `PREFIXLOG_MAX_BODY_BYTES`");

  public SamplingConfig {
    if (seed.isEmpty()) {
      throw new ConfigException(SEED.name() + " must not be empty");
    }
    keepModels = List.copyOf(keepModels);
    keepPaths = List.copyOf(keepPaths);
  }

  static SamplingConfig from(ConfigValues values) {
    return new SamplingConfig(
        values.get(SESSIONS),
        values.get(SEED),
        values.get(KEEP_ERRORS),
        values.get(KEEP_MODELS),
        values.get(KEEP_PATHS),
        values.get(HASH_CHUNKS),
        values.get(CHUNK_SIZE_BYTES).intValue(),
        values.get(CLIENT_RATE),
        values.get(CLIENT_BURST));
  }
}
