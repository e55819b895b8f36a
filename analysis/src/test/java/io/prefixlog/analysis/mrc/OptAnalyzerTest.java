package io.prefixlog.analysis.mrc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OptAnalyzerTest {

  private static final Semantics[] SEMANTICS = Semantics.values();

  @Test
  void shouldGiveTheTextbookMinFaultsForBeladysReferenceString() {
    // Given: 1 2 3 4 1 2 5 1 2 3 4 5, one chunk per request; MIN faults 7 with 3 frames and 6
    // with 4 (LRU: 10 and 8)
    long[] string = {1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5};
    OptAnalyzer opt = new OptAnalyzer();
    MrcAnalyzer lru = MrcAnalyzer.exact();
    for (long key : string) {
      opt.accept(LookupRequest.of(0, "m", new long[] {key}, 1, 1));
      lru.accept(LookupRequest.of(0, "m", new long[] {key}, 1, 1));
    }

    // When
    Curve curve = opt.finish().overall();
    Curve lruCurve = lru.finish().overall().curve();

    // Then
    assertThat(12 - curve.hits(Semantics.PER_CHUNK, 3)).isEqualTo(7);
    assertThat(12 - curve.hits(Semantics.PER_CHUNK, 4)).isEqualTo(6);
    assertThat(12 - lruCurve.hits(Semantics.PER_CHUNK, 3)).isEqualTo(10);
    assertThat(12 - lruCurve.hits(Semantics.PER_CHUNK, 4)).isEqualTo(8);
    assertThat(curve.hits(Semantics.PER_CHUNK, 5)).isEqualTo(7); // all but the 5 first lookups
    assertThat(curve.workingSet()).isEqualTo(5);
  }

  @Test
  void shouldInsertEveryMissedChunkAsADemandPagedCacheMust() {
    // Given: a b a with one slot: b must be inserted, evicting a (a cache that could skip b
    // would hit a)
    OptAnalyzer opt = new OptAnalyzer();
    opt.accept(LookupRequest.of(0, "m", new long[] {1, 2, 1}, 10, 35));

    // When
    Curve curve = opt.finish().overall();

    // Then
    assertThat(curve.hits(Semantics.PER_CHUNK, 1)).isZero();
    assertThat(curve.hits(Semantics.PER_CHUNK, 2)).isEqualTo(1);
    assertThat(curve.unitHits(Semantics.PER_CHUNK, 2)).isEqualTo(10);
    assertThat(curve.hitRate(Semantics.PER_CHUNK, Weighting.UNITS, 2)).isEqualTo(10.0 / 35);
    assertThat(curve.hits(Semantics.PREFIX, 2)).isZero(); // the hit is the request's third chunk
  }

  @Test
  void shouldCountOnlyLeadingMinHitsAsPrefixHitsWhichDoNotBoundUnchainedKeys() {
    // Given: [p q] [r] [s q] [p] with two slots. MIN keeps q (used sooner than p) and hits it in
    // the middle of a request; a cache that kept p instead would hit [p] from the start.
    long p = 1;
    long q = 2;
    long r = 3;
    long s = 4;
    OptAnalyzer opt = new OptAnalyzer();
    opt.accept(LookupRequest.of(0, "m", new long[] {p, q}, 1, 2));
    opt.accept(LookupRequest.of(1, "m", new long[] {r}, 1, 1));
    opt.accept(LookupRequest.of(2, "m", new long[] {s, q}, 1, 2));
    opt.accept(LookupRequest.of(3, "m", new long[] {p}, 1, 1));

    // When
    Curve curve = opt.finish().overall();

    // Then
    assertThat(curve.hits(Semantics.PER_CHUNK, 2)).isEqualTo(1);
    assertThat(curve.hits(Semantics.PREFIX, 2)).isZero();
    NaiveMin naive =
        naive(
            List.of(
                LookupRequest.of(0, "m", new long[] {p, q}, 1, 2),
                LookupRequest.of(1, "m", new long[] {r}, 1, 1),
                LookupRequest.of(2, "m", new long[] {s, q}, 1, 2),
                LookupRequest.of(3, "m", new long[] {p}, 1, 1)),
            2);
    assertThat(naive.hits(Semantics.PER_CHUNK)).isEqualTo(1);
    assertThat(naive.hits(Semantics.PREFIX)).isZero();
  }

  @Test
  void shouldEqualTheNaiveMinSimulatorAtEveryCapacityOnRandomTraces() {
    for (int seed = 0; seed < 30; seed++) {
      // Given
      List<LookupRequest> trace =
          Traces.random(seed, 200, 4 + seed * 6, 10, 1 + seed % 3, seed % 2 == 0);

      // When
      OptimalCurves curves = analyze(trace);

      // Then
      assertMatchesNaiveAtEveryCapacity(curves, trace, "random seed " + seed);
    }
  }

  @Test
  void shouldEqualTheNaiveMinSimulatorOnAdversarialTraces() {
    List<List<LookupRequest>> traces = new ArrayList<>();
    // a loop one key larger than small caches (LRU's worst case: it never hits below 12)
    traces.add(oneChunkRequests(cycle(12, 10)));
    // a sawtooth: forwards then backwards
    long[] saw = new long[0];
    for (int round = 0; round < 6; round++) {
      long[] up = cycle(15, 1);
      long[] down = up.clone();
      for (int i = 0; i < 15; i++) {
        down[i] = up[14 - i];
      }
      saw = concat(saw, up, down);
    }
    traces.add(oneChunkRequests(saw));
    // every chunk repeated inside its request, and requests repeated at growing distances
    List<LookupRequest> repeats = new ArrayList<>();
    for (int r = 0; r < 60; r++) {
      repeats.add(LookupRequest.of(r, "m", new long[] {r % 7, r % 7, r % 11, r % 7}, 3, 12));
    }
    traces.add(repeats);
    // keys used once interleaved with a hot set (ties among keys never used again)
    List<LookupRequest> oneHits = new ArrayList<>();
    for (int r = 0; r < 80; r++) {
      oneHits.add(LookupRequest.of(r, "m", new long[] {1000 + r, r % 5, 2000 + r, r % 9}, 2, 9));
    }
    traces.add(oneHits);
    // skewed and prefix-chained traces
    traces.add(Traces.skewed(3, 150, 300, 12));
    traces.add(Traces.chained(4, 150, 6));
    for (int i = 0; i < traces.size(); i++) {
      assertMatchesNaiveAtEveryCapacity(analyze(traces.get(i)), traces.get(i), "trace " + i);
    }
  }

  @Test
  void shouldEqualTheNaiveMinSimulatorAtEveryCapacityOnManySmallTraces() {
    Random random = new Random(2017);
    for (int t = 0; t < 1500; t++) {
      // Given: a few requests over a handful of keys, two models, chunk weights that differ;
      // chunks used once (ties in next use: never), a chunk repeated inside its request, empty
      // requests
      List<LookupRequest> trace = new ArrayList<>();
      int requests = 1 + random.nextInt(12);
      int keys = 1 + random.nextInt(6);
      long unique = 1_000;
      for (int r = 0; r < requests; r++) {
        long[] chunks = new long[random.nextInt(6)];
        for (int i = 0; i < chunks.length; i++) {
          int kind = random.nextInt(8);
          if (kind == 0) {
            chunks[i] = unique++; // never used again
          } else if (kind == 1 && i > 0) {
            chunks[i] = chunks[random.nextInt(i)]; // repeated within the request
          } else {
            chunks[i] = random.nextInt(keys);
          }
        }
        long weight = 1 + random.nextInt(4);
        long seqLen = chunks.length * weight + random.nextInt(3);
        trace.add(LookupRequest.of(r, random.nextInt(4) == 0 ? "b" : "a", chunks, weight, seqLen));
      }

      // When
      OptimalCurves curves = analyze(trace);

      // Then
      assertMatchesNaiveAtEveryCapacity(curves, trace, "small trace " + t);
    }
  }

  @Test
  void shouldNeverHitLessThanLruAtAnyCapacity() {
    for (int seed = 0; seed < 20; seed++) {
      // Given
      List<LookupRequest> trace =
          seed % 2 == 0
              ? Traces.random(seed, 400, 10 + seed * 20, 16, 2, true)
              : Traces.skewed(seed, 400, 50 + seed * 30, 16);
      MrcAnalyzer lru = MrcAnalyzer.exact();
      trace.forEach(lru::accept);

      // When
      Curve lruCurve = lru.finish().overall().curve();
      Curve optCurve = analyze(trace).overall();

      // Then: per chunk, at every capacity; and OPT is strictly better somewhere between
      boolean better = false;
      for (long c = 0; c <= lruCurve.workingSet() + 1; c++) {
        long lruHits = lruCurve.hits(Semantics.PER_CHUNK, c);
        long optHits = optCurve.hits(Semantics.PER_CHUNK, c);
        assertThat(optHits).as("seed %d capacity %d", seed, c).isGreaterThanOrEqualTo(lruHits);
        better |= optHits > lruHits;
      }
      assertThat(better).as("seed %d", seed).isTrue();
      assertThat(optCurve.maxHitRate(Semantics.PER_CHUNK, Weighting.UNITS))
          .isEqualTo(lruCurve.maxHitRate(Semantics.PER_CHUNK, Weighting.UNITS));
    }
  }

  @Test
  void shouldBoundPrefixHitsOnlyThroughThePerChunkFigureEvenForPrefixChainedHashes() {
    boolean prefixBelowPerChunk = false;
    for (int seed = 0; seed < 10; seed++) {
      // Given
      List<LookupRequest> trace = Traces.chained(seed, 300, 3 + seed);
      MrcAnalyzer lru = MrcAnalyzer.exact();
      trace.forEach(lru::accept);

      // When
      Curve optCurve = analyze(trace).overall();
      Curve lruCurve = lru.finish().overall().curve();

      // Then: MIN's per-chunk hits bound LRU's prefix hits; MIN's own leading runs can be fewer,
      // because inserting a missed child may evict its parent (demand paging)
      for (long c = 0; c <= optCurve.workingSet() + 1; c++) {
        long perChunk = optCurve.hits(Semantics.PER_CHUNK, c);
        long prefix = optCurve.hits(Semantics.PREFIX, c);
        assertThat(perChunk)
            .as("seed %d capacity %d", seed, c)
            .isGreaterThanOrEqualTo(lruCurve.hits(Semantics.PREFIX, c))
            .isGreaterThanOrEqualTo(prefix);
        prefixBelowPerChunk |= prefix < perChunk;
      }
    }
    assertThat(prefixBelowPerChunk).isTrue();
  }

  @Test
  void shouldKeepOneCachePerModelAndSumThemOverall() {
    // Given: the same keys under two models: each model's cache sees only its own lookups
    List<LookupRequest> trace = new ArrayList<>();
    for (int r = 0; r < 40; r++) {
      trace.add(LookupRequest.of(r, r % 2 == 0 ? "a" : "b", new long[] {r % 3, r % 5}, 4, 8));
    }

    // When
    OptimalCurves curves = analyze(trace);

    // Then
    assertThat(curves.models().keySet()).containsExactly("a", "b");
    for (long c = 0; c < 8; c++) {
      assertThat(curves.overall().hits(Semantics.PER_CHUNK, c))
          .isEqualTo(
              curves.models().get("a").hits(Semantics.PER_CHUNK, c)
                  + curves.models().get("b").hits(Semantics.PER_CHUNK, c));
    }
    assertThat(curves.curve(ModelAnalysis.ALL_MODELS)).contains(curves.overall());
    assertThat(curves.curve("c")).isEmpty();
  }

  @Test
  void shouldRejectUseAfterFinishAndBadRequests() {
    OptAnalyzer opt = new OptAnalyzer();
    assertThatThrownBy(() -> opt.accept(0, "m", new long[] {1, 2}, 0, 2, 10, 5, -1, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("seqLen 5");
    assertThat(opt.finish().overall().totals().requests()).isZero();
    assertThatThrownBy(opt::finish).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> opt.accept(LookupRequest.of(0, "m", new long[] {1}, 1, 1)))
        .isInstanceOf(IllegalStateException.class);
  }

  private static OptimalCurves analyze(List<LookupRequest> trace) {
    OptAnalyzer opt = new OptAnalyzer();
    trace.forEach(opt::accept);
    return opt.finish();
  }

  private static NaiveMin naive(List<LookupRequest> requests, long capacity) {
    NaiveMin min = new NaiveMin(capacity);
    requests.forEach(min::accept);
    min.finish();
    return min;
  }

  /** Per model and overall, both semantics, chunks and units, at capacities 0..working set + 1. */
  private static void assertMatchesNaiveAtEveryCapacity(
      OptimalCurves curves, List<LookupRequest> trace, String what) {
    Map<String, List<LookupRequest>> byModel = new HashMap<>();
    for (LookupRequest request : trace) {
      byModel.computeIfAbsent(request.model(), m -> new ArrayList<>()).add(request);
    }
    long workingSet = curves.overall().workingSet();
    assertThat(curves.models().keySet()).containsExactlyInAnyOrderElementsOf(byModel.keySet());
    for (long c = 0; c <= workingSet + 1; c++) {
      long[] overall = new long[4];
      for (Map.Entry<String, List<LookupRequest>> model : byModel.entrySet()) {
        NaiveMin min = naive(model.getValue(), c);
        Curve curve = curves.models().get(model.getKey());
        for (Semantics s : SEMANTICS) {
          assertThat(curve.hits(s, c))
              .as("%s model %s %s capacity %d", what, model.getKey(), s, c)
              .isEqualTo(min.hits(s));
          assertThat(curve.unitHits(s, c))
              .as("%s model %s %s units capacity %d", what, model.getKey(), s, c)
              .isEqualTo(min.unitHits(s));
          overall[s.ordinal() * 2] += min.hits(s);
          overall[s.ordinal() * 2 + 1] += min.unitHits(s);
        }
      }
      for (Semantics s : SEMANTICS) {
        assertThat(curves.overall().hits(s, c))
            .as("%s overall %s %d", what, s, c)
            .isEqualTo(overall[s.ordinal() * 2]);
        assertThat(curves.overall().unitHits(s, c)).isEqualTo(overall[s.ordinal() * 2 + 1]);
      }
    }
  }

  private static long[] cycle(int keys, int rounds) {
    long[] out = new long[keys * rounds];
    for (int i = 0; i < out.length; i++) {
      out[i] = i % keys;
    }
    return out;
  }

  private static long[] concat(long[]... parts) {
    return Arrays.stream(parts).flatMapToLong(Arrays::stream).toArray();
  }

  private static List<LookupRequest> oneChunkRequests(long[] keys) {
    List<LookupRequest> out = new ArrayList<>();
    for (int i = 0; i < keys.length; i++) {
      out.add(LookupRequest.of(i, "m", new long[] {keys[i]}, 1, 1));
    }
    return out;
  }
}
