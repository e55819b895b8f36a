package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.Analysis;
import io.prefixlog.analysis.mrc.Curve;
import io.prefixlog.analysis.mrc.LookupRequest;
import io.prefixlog.analysis.mrc.MrcAnalyzer;
import io.prefixlog.analysis.mrc.Semantics;
import io.prefixlog.analysis.mrc.Weighting;
import io.prefixlog.cli.Units;
import io.prefixlog.core.chunk.Rechunker;
import io.prefixlog.core.chunk.RenderedPrompt;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.schemas.delta.DeltaRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The chunk-size what-if: every verified turn of a capture is re-rendered and re-hashed at each
 * chunk size ({@link Rechunker}), and each size's lookups go through the same one-pass LRU analysis
 * ({@link MrcAnalyzer}) as the lookup records do, in timestamp order, one cache per model. Sizes
 * are compared at equal capacity in KV bytes: a chunk of N tokens holds N tokens of KV, a chunk of
 * N bytes of rendered prompt about N / {@value #BYTES_PER_TOKEN} tokens (the estimate the rest of
 * analyze uses); without {@code --kv-bytes-per-token} capacities are given in units (bytes or
 * tokens) of prompt held, which is proportional.
 */
final class ChunkSizeWhatIf implements RebuildListener {
  /** Bytes of rendered prompt per token, for KV bytes of byte chunks. */
  static final int BYTES_PER_TOKEN = 4;

  static final String CSV = "chunk-sizes.csv";
  static final String CSV_HEADER =
      "chunk_size,unit,capacity_units,capacity_chunks,capacity_kv_bytes,prefix_units,"
          + "prefix_chunks";

  /** Rows of the summary's table, log-spaced over the capacities where the curves move. */
  static final int TABLE_ROWS = 8;

  /**
   * What to compute.
   *
   * @param sizes chunk sizes in units, ascending, distinct
   * @param tokens whether sizes count tokens (a tokenizer was given) rather than bytes
   * @param kvBytesPerToken KV-cache bytes one token occupies, or 0 when not given
   */
  record Plan(int[] sizes, boolean tokens, long kvBytesPerToken) {
    Plan {
      sizes = sizes.clone();
    }

    String unit() {
      return tokens ? "tokens" : "bytes";
    }

    /** KV bytes one chunk of {@code size} occupies, or 0 when unknown. */
    double kvBytesPerChunk(int size) {
      return tokens
          ? (double) size * kvBytesPerToken
          : (double) size * kvBytesPerToken / BYTES_PER_TOKEN;
    }
  }

  /** One turn, reduced to what the analysis needs. */
  private record Turn(
      long tsMs,
      long order,
      String model,
      long length,
      long promptTokens,
      long cachedTokens,
      long[][] hashes) {}

  /** One size's result. */
  record SizeResult(int size, Analysis analysis) {
    Curve curve() {
      return analysis.overall().curve();
    }
  }

  private final Plan plan;
  private final Rechunker rechunker;
  private final List<Turn> turns = new ArrayList<>();
  private final Map<RenderedPrompt.Kind, Long> kinds = new EnumMap<>(RenderedPrompt.Kind.class);
  private long untimed;
  private long renderedBytes;

  ChunkSizeWhatIf(Plan plan, Rechunker.Tokenizer tokenizer) {
    this.plan = Objects.requireNonNull(plan, "plan");
    if (plan.tokens() != (tokenizer != null)) {
      throw new IllegalArgumentException("a token plan needs a tokenizer, a byte plan none");
    }
    this.rechunker = new Rechunker(plan.sizes(), tokenizer);
  }

  @Override
  public void onVerifiedTurn(String sessionKey, long seq, DeltaRecord record, byte[] body) {
    if (record.ts() == null) {
      // The stream app writes no lookup record without a time either (ChunkLookups needs ts).
      untimed++;
      return;
    }
    Rechunker.Rechunked r = rechunker.rechunk(body);
    kinds.merge(r.kind(), 1L, Long::sum);
    renderedBytes += body.length;
    long prompt = record.promptTokens() == null ? LookupRequest.UNKNOWN : record.promptTokens();
    long cached =
        record.cachedTokens() != null
            ? record.cachedTokens()
            // vLLM omits cached_tokens when zero; with prompt tokens known, absent means zero.
            : prompt == LookupRequest.UNKNOWN ? LookupRequest.UNKNOWN : 0;
    turns.add(
        new Turn(
            record.ts(),
            turns.size(),
            record.model() == null ? "" : record.model(),
            r.length(),
            prompt,
            cached,
            r.hashes()));
  }

  long turns() {
    return turns.size();
  }

  long untimed() {
    return untimed;
  }

  /** Bytes of request bodies rebuilt and re-chunked. */
  long bodyBytes() {
    return renderedBytes;
  }

  /**
   * The lookups at the {@code index}-th size, in the order the analysis reads them: by timestamp,
   * ties in rebuild order (as analyze orders lookup records).
   */
  List<LookupRequest> requests(int index) {
    List<Turn> ordered = new ArrayList<>(turns);
    ordered.sort(Comparator.comparingLong(Turn::tsMs).thenComparingLong(Turn::order));
    int size = plan.sizes()[index];
    List<LookupRequest> requests = new ArrayList<>(ordered.size());
    for (Turn turn : ordered) {
      requests.add(
          new LookupRequest(
              turn.tsMs(),
              turn.model(),
              turn.hashes()[index],
              size,
              turn.length(),
              turn.promptTokens(),
              turn.cachedTokens()));
    }
    return requests;
  }

  /** One exact analysis per size, in the plan's order. */
  List<SizeResult> analyze() {
    List<SizeResult> results = new ArrayList<>();
    int[] sizes = plan.sizes();
    for (int i = 0; i < sizes.length; i++) {
      MrcAnalyzer analyzer = MrcAnalyzer.exact();
      for (LookupRequest request : requests(i)) {
        analyzer.accept(request);
      }
      results.add(new SizeResult(sizes[i], analyzer.finish()));
    }
    return results;
  }

  /** The capacities (in units of prompt held) at which the sizes are compared, ascending. */
  static long[] unitGrid(List<SizeResult> results, int points) {
    long min = Long.MAX_VALUE;
    long max = 1;
    for (SizeResult r : results) {
      min = Math.min(min, r.size());
      long saturation = Math.max(1, r.curve().saturationCapacity(Semantics.PREFIX));
      max =
          Math.max(
              max, saturation > Long.MAX_VALUE / r.size() ? Long.MAX_VALUE : saturation * r.size());
    }
    max = Math.max(max, min);
    long[] grid = Curve.logSpaced(points, Math.max(1, max / min));
    for (int i = 0; i < grid.length; i++) {
      grid[i] = grid[i] * min;
    }
    return grid;
  }

  /** The prefix-cache hit rate, weighted by units, of a cache holding {@code units} of prompt. */
  static double rateAt(SizeResult r, long units) {
    long chunks = units / r.size();
    return chunks == 0 ? 0 : r.curve().hitRate(Semantics.PREFIX, Weighting.UNITS, chunks);
  }

  /** The smallest cache, in chunks, reaching {@code fraction} of the size's achievable rate. */
  static long capacityFor(SizeResult r, double fraction) {
    return Subject.capacityFor(r.curve(), Semantics.PREFIX, Weighting.UNITS, fraction);
  }

  String capacityText(long units) {
    String held = Units.count(units) + " " + plan.unit();
    if (plan.kvBytesPerToken() == 0) {
      return held;
    }
    return held + " (" + Quantities.binaryBytes(units * plan.kvBytesPerChunk(1)) + ")";
  }

  /** The text report. */
  String summary(List<SizeResult> results) {
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "%n== chunk-size what-if: prompts re-rendered and re-hashed in chunks of %s of the"
                + " %s%n",
            plan.unit(),
            plan.tokens() ? "tokenized rendering" : "rendering"));
    s.append(
        String.format(
            Locale.ROOT,
            "  %s re-chunked (%s chat, %s completion, %s raw bodies; %s of bodies)%s%n",
            Units.count(turns.size(), "turn"),
            Units.count(kinds.getOrDefault(RenderedPrompt.Kind.CHAT_MESSAGES, 0L)),
            Units.count(kinds.getOrDefault(RenderedPrompt.Kind.COMPLETION_PROMPT, 0L)),
            Units.count(kinds.getOrDefault(RenderedPrompt.Kind.RAW_BODY, 0L)),
            Units.bytes(renderedBytes),
            untimed > 0 ? ", " + Units.count(untimed) + " without a timestamp left out" : ""));
    if (plan.kvBytesPerToken() > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "  KV bytes per chunk: chunk size x %s (--kv-bytes-per-token %s%s)%n",
              Quantities.binaryBytes(plan.kvBytesPerChunk(1)),
              Quantities.binaryBytes(plan.kvBytesPerToken()),
              plan.tokens() ? "" : ", at " + BYTES_PER_TOKEN + " bytes a token"));
    } else {
      s.append(
          "  capacities in "
              + plan.unit()
              + " of prompt held (KV bytes scale with them; give --kv-bytes-per-token for bytes"
              + " of KV)\n");
    }
    s.append(
        String.format(
            Locale.ROOT,
            "    %-12s %12s %14s  %-30s %10s  %s%n",
            "chunk size",
            "lookups",
            "per request",
            "working set",
            "achievable",
            "90% of achievable"));
    for (SizeResult r : results) {
      Curve c = r.curve();
      long requests = c.totals().requests();
      long lookups = c.totals().accesses();
      long ws = c.workingSet();
      long c90 = capacityFor(r, 0.9);
      s.append(
          String.format(
              Locale.ROOT,
              "    %-12s %12s %14.1f  %-30s %10s  %s%n",
              r.size() + " " + plan.unit(),
              Units.count(lookups),
              requests == 0 ? 0.0 : (double) lookups / requests,
              capacityText(ws * r.size()),
              Quantities.percent(c.maxHitRate(Semantics.PREFIX, Weighting.UNITS)),
              c90 == 0 ? "-" : capacityText(c90 * r.size())));
    }
    s.append(
        String.format(
            Locale.ROOT,
            "  LRU hit rate (prefix cache, %% of %s) at equal capacity:%n    %-36s",
            plan.unit(),
            "capacity"));
    for (SizeResult r : results) {
      s.append(String.format(Locale.ROOT, " %11s", r.size() + " " + (plan.tokens() ? "tok" : "B")));
    }
    s.append('\n');
    for (long units : unitGrid(results, TABLE_ROWS)) {
      s.append(String.format(Locale.ROOT, "    %-36s", capacityText(units)));
      for (SizeResult r : results) {
        s.append(String.format(Locale.ROOT, " %11s", Quantities.percent(rateAt(r, units))));
      }
      s.append('\n');
    }
    return s.toString();
  }

  /** {@value #CSV}: every size at {@code points} capacities shared by all sizes. */
  Path writeCsv(Path dir, List<SizeResult> results, int points) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(CSV);
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write(CSV_HEADER);
      w.write('\n');
      long[] grid = unitGrid(results, points);
      for (SizeResult r : results) {
        for (long units : grid) {
          long chunks = units / r.size();
          w.write(
              String.format(
                  Locale.ROOT,
                  "%d,%s,%d,%d,%s,%.6f,%.6f%n",
                  r.size(),
                  plan.unit(),
                  units,
                  chunks,
                  plan.kvBytesPerToken() == 0
                      ? ""
                      : String.format(Locale.ROOT, "%.0f", chunks * plan.kvBytesPerChunk(r.size())),
                  rateAt(r, units),
                  chunks == 0
                      ? 0.0
                      : r.curve().hitRate(Semantics.PREFIX, Weighting.CHUNKS, chunks)));
        }
      }
    }
    return file;
  }

  Plan plan() {
    return plan;
  }
}
