package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.Mix64;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Test traces written as lookup lines: the same requests as lines of LMCache's lookup-hash log and
 * as prefixlog's chunk-hash lookup records.
 */
final class TraceLines {
  private TraceLines() {}

  /**
   * One request.
   *
   * @param promptTokens null when unknown
   * @param cachedTokens null when absent
   */
  record Req(
      double timestamp,
      String requestId,
      String model,
      int chunkSize,
      long seqLen,
      long[] keys,
      Long promptTokens,
      Long cachedTokens) {

    static Req of(double timestamp, String model, int chunkSize, long seqLen, long... keys) {
      return new Req(
          timestamp,
          "req-" + Double.toString(timestamp).replace('.', '-'),
          model,
          chunkSize,
          seqLen,
          keys,
          null,
          null);
    }

    Req withEngine(Long prompt, Long cached) {
      return new Req(timestamp, requestId, model, chunkSize, seqLen, keys, prompt, cached);
    }
  }

  /** LMCache's KV shape of a chunk in the tests: 2 × 4 × 16 × 2 × 8 bf16 = 4 KiB. */
  static final String LMCACHE_KV = "\"dtypes\":[\"bfloat16\"],\"shapes\":[[2,4,16,2,8]]";

  static final long LMCACHE_KV_BYTES = 2L * 4 * 16 * 2 * 8 * 2;

  /** A line of LMCache's lookup-hash log: LMCache's fields only, hashes as Python's hex(). */
  static String lmcache(Req r) {
    StringBuilder s = new StringBuilder("{");
    s.append("\"timestamp\":").append(timestamp(r.timestamp()));
    s.append(",\"request_id\":\"").append(r.requestId()).append('"');
    s.append(",\"model_name\":\"").append(r.model()).append('"');
    s.append(",\"chunk_size\":").append(r.chunkSize());
    s.append(",\"seq_len\":").append(r.seqLen());
    s.append(',').append(LMCACHE_KV);
    s.append(",\"chunk_hashes\":[");
    for (int i = 0; i < r.keys().length; i++) {
      // Python's hex() of an unsigned 64-bit int: no leading zeros.
      s.append(i == 0 ? "" : ",").append("\"0x").append(Long.toHexString(r.keys()[i])).append('"');
    }
    return s.append("]}").toString();
  }

  /** A chunk-hash lookup record of prefixlog (docs/design.md#records) in {@code unit}. */
  static String prefixlog(Req r, String unit) {
    StringBuilder s = new StringBuilder("{");
    s.append("\"timestamp\":").append(timestamp(r.timestamp()));
    s.append(",\"request_id\":\"").append(r.requestId()).append('"');
    s.append(",\"model_name\":\"").append(r.model()).append('"');
    s.append(",\"chunk_size\":").append(r.chunkSize());
    s.append(",\"seq_len\":").append(r.seqLen());
    s.append(",\"chunk_hashes\":[");
    for (int i = 0; i < r.keys().length; i++) {
      s.append(i == 0 ? "" : ",")
          .append("\"0x")
          .append(HexFormat.of().toHexDigits(r.keys()[i]))
          .append('"');
    }
    s.append("],\"session_key\":\"3f9a0c5e71b2d48a\"");
    s.append(",\"hash_algo\":\"sha256_chain_64\"");
    s.append(",\"chunk_unit\":\"").append(unit).append('"');
    s.append(",\"chunked\":\"chat_messages\"");
    if (r.promptTokens() != null) {
      s.append(",\"prompt_tokens\":").append(r.promptTokens());
    }
    if (r.cachedTokens() != null) {
      s.append(",\"cached_tokens\":").append(r.cachedTokens());
    }
    return s.append('}').toString();
  }

  private static String timestamp(double t) {
    return String.format(Locale.ROOT, "%.6f", t);
  }

  /**
   * A random trace: sessions whose turns grow a prefix-chained run of chunks (sharing a system
   * prompt per model), mixed with requests of unchained random keys drawn from a small pool (so
   * that prefix and per-chunk semantics differ). Timestamps are distinct.
   */
  static List<Req> random(long seed, int sessions, List<String> models) {
    Random random = new Random(seed);
    List<Req> requests = new ArrayList<>();
    double t0 = 1_763_700_000.0;
    int n = 0;
    for (int s = 0; s < sessions; s++) {
      String model = models.get(random.nextInt(models.size()));
      List<Long> keys = new ArrayList<>();
      long chain = model.hashCode();
      for (int i = 0; i < 3; i++) {
        chain = Mix64.mix(chain * 31 + i);
        keys.add(chain);
      }
      chain = Mix64.mix(chain ^ (s + 1) * 0x9E3779B97F4A7C15L);
      keys.add(chain);
      double t = t0 + random.nextInt(3_600_000) / 1000.0;
      int turns = 1 + random.nextInt(8);
      for (int k = 0; k < turns; k++) {
        long[] array = keys.stream().mapToLong(Long::longValue).toArray();
        int chunkSize = 16;
        requests.add(
            new Req(
                t + (n++) * 1e-4,
                "s" + s + "-" + k,
                model,
                chunkSize,
                (long) array.length * chunkSize + random.nextInt(chunkSize),
                array,
                null,
                null));
        for (int j = 1 + random.nextInt(4); j > 0; j--) {
          chain = Mix64.mix(chain * 31 + j + k * 7);
          keys.add(chain);
        }
        t += 1 + random.nextInt(120);
      }
    }
    for (int i = 0; i < sessions; i++) {
      String model = models.get(random.nextInt(models.size()));
      long[] keys = new long[1 + random.nextInt(5)];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = 1000 + random.nextInt(40);
      }
      requests.add(
          new Req(
              t0 + random.nextInt(3_600_000) / 1000.0 + (n++) * 1e-4,
              "x" + i,
              model,
              16,
              keys.length * 16L,
              keys,
              null,
              null));
    }
    java.util.Collections.shuffle(requests, random);
    return requests;
  }
}
