package io.prefixlog.analysis.mrc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class MrcAnalyzerTest {

  private static final Semantics[] SEMANTICS = Semantics.values();

  @Test
  void shouldGiveHandComputedHitsForBothSemantics() {
    // Given: distances a:∞ b:∞ | b:1 a:2 | c:∞ a:2 b:3
    MrcAnalyzer analyzer = MrcAnalyzer.exact();
    long a = 1;
    long b = 2;
    long c = 3;
    analyzer.accept(LookupRequest.of(0, "m", new long[] {a, b}, 10, 25));
    analyzer.accept(LookupRequest.of(1, "m", new long[] {b, a}, 10, 20));
    analyzer.accept(LookupRequest.of(2, "m", new long[] {c, a, b}, 10, 30));

    // When
    Curve curve = analyzer.finish().overall().curve();

    // Then
    assertThat(curve.totals()).isEqualTo(new Totals(3, 7, 70, 75, 3, 7, 70));
    assertThat(curve.workingSet()).isEqualTo(3);
    // per chunk: distances 1, 2, 2, 3
    assertThat(curve.hits(Semantics.PER_CHUNK, 1)).isEqualTo(1);
    assertThat(curve.hits(Semantics.PER_CHUNK, 2)).isEqualTo(3);
    assertThat(curve.hits(Semantics.PER_CHUNK, 3)).isEqualTo(4);
    assertThat(curve.unitHits(Semantics.PER_CHUNK, 3)).isEqualTo(40);
    // prefix: request 2 has running maxima 1, 2; request 3 starts cold, so nothing
    assertThat(curve.hits(Semantics.PREFIX, 1)).isEqualTo(1);
    assertThat(curve.hits(Semantics.PREFIX, 2)).isEqualTo(2);
    assertThat(curve.hits(Semantics.PREFIX, 100)).isEqualTo(2);
    assertThat(curve.hitRate(2)).isEqualTo(20.0 / 75);
    assertThat(curve.hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, 2)).isEqualTo(3.0 / 7);
    assertThat(curve.saturationCapacity(Semantics.PER_CHUNK)).isEqualTo(3);
    assertThat(curve.saturationCapacity(Semantics.PREFIX)).isEqualTo(2);
    assertThat(curve.hits(Semantics.PER_CHUNK, 0)).isZero();
  }

  @Test
  void shouldEqualTheNaiveSimulatorAtEveryCapacityOnSmallTraces() {
    for (int seed = 0; seed < 30; seed++) {
      // Given
      int keySpace = 5 + seed * 8;
      List<LookupRequest> trace =
          Traces.random(seed, 300, keySpace, 12, 1 + seed % 3, seed % 2 == 0);
      MrcAnalyzer.Builder builder = MrcAnalyzer.builder();
      if (seed % 4 == 0) {
        builder.timelineCapacity(1); // renumbered every few dozen lookups
      }
      MrcAnalyzer analyzer = builder.build();

      // When
      trace.forEach(analyzer::accept);
      Analysis analysis = analyzer.finish();

      // Then: every model's curve, and the overall one, at every capacity up to working set + 1
      long workingSet = analysis.overall().curve().workingSet();
      long[] capacities = new long[(int) workingSet + 2];
      for (int c = 0; c < capacities.length; c++) {
        capacities[c] = c;
      }
      assertMatchesNaive(analysis, trace, capacities, "seed " + seed);
      if (seed % 4 == 0) {
        assertThat(analyzer.compactions()).isGreaterThan(0);
      }
    }
  }

  @Test
  void shouldEqualTheNaiveSimulatorAtLogSpacedCapacitiesOnLargerTraces() {
    for (int seed = 100; seed < 102; seed++) {
      // Given: ~20,000 distinct keys, ~300,000 lookups, two models
      List<LookupRequest> trace = Traces.random(seed, 50_000, 20_000, 24, 2, seed % 2 == 0);
      MrcAnalyzer analyzer = MrcAnalyzer.builder().timelineCapacity(64).build();

      // When
      trace.forEach(analyzer::accept);
      Analysis analysis = analyzer.finish();

      // Then
      long[] capacities = Curve.logSpaced(20, analysis.overall().curve().workingSet() + 1);
      assertMatchesNaive(analysis, trace, capacities, "seed " + seed);
      assertThat(analyzer.compactions()).isGreaterThan(10);
    }
  }

  @Test
  void shouldEqualTheNaiveSimulatorOnAZipfTraceWhoseDistancesSpanTheWorkingSet() {
    // Given
    List<LookupRequest> trace = Traces.skewed(5, 20_000, 30_000, 16);
    MrcAnalyzer analyzer = MrcAnalyzer.exact();

    // When
    trace.forEach(analyzer::accept);
    Analysis analysis = analyzer.finish();

    // Then
    Curve curve = analysis.overall().curve();
    long saturation = curve.saturationCapacity(Semantics.PER_CHUNK);
    assertMatchesNaive(
        analysis,
        trace,
        new long[] {1, 10, 100, 1_000, 5_000, saturation - 1, saturation, saturation + 1},
        "zipf");
    assertThat(curve.hits(Semantics.PER_CHUNK, saturation))
        .isGreaterThan(curve.hits(Semantics.PER_CHUNK, saturation - 1))
        .isEqualTo(curve.hits(Semantics.PER_CHUNK, Long.MAX_VALUE));
  }

  @Test
  void shouldGiveIdenticalSemanticsForPrefixChainedHashes() {
    // Given
    List<LookupRequest> trace = Traces.chained(3, 3_000, 40);
    MrcAnalyzer analyzer = MrcAnalyzer.exact();

    // When
    trace.forEach(analyzer::accept);
    Curve curve = analyzer.finish().overall().curve();

    // Then: an earlier chunk's distance never exceeds a later one's, so the leading run is all hits
    assertThat(curve.hits(Semantics.PREFIX, Long.MAX_VALUE)).isGreaterThan(1_000);
    for (long c = 0; c <= curve.workingSet() + 1; c++) {
      assertThat(curve.hits(Semantics.PREFIX, c))
          .as("capacity %d", c)
          .isEqualTo(curve.hits(Semantics.PER_CHUNK, c));
      assertThat(curve.unitHits(Semantics.PREFIX, c))
          .isEqualTo(curve.unitHits(Semantics.PER_CHUNK, c));
    }
  }

  @Test
  void shouldGiveWindowedAndCumulativeRatesEqualToABruteForceRecomputation() {
    for (int seed = 0; seed < 12; seed++) {
      // Given
      List<LookupRequest> trace = Traces.random(seed, 600, 40 + seed * 20, 10, 3, true);
      long[] capacities = {1, 3, 10, 30, 1_000};
      Windowing windowing =
          seed % 2 == 0 ? Windowing.byTime(Duration.ofSeconds(7)) : Windowing.byRequests(37);
      MrcAnalyzer analyzer =
          MrcAnalyzer.builder()
              .windows(windowing)
              .windowCapacities(30, 1, 10, 3, 1_000, 3)
              .timelineCapacity(seed % 3 == 0 ? 1 : 1 << 16)
              .build();

      // When
      trace.forEach(analyzer::accept);
      Analysis analysis = analyzer.finish();

      // Then
      assertThat(analysis.windowCapacities()).containsExactly(1L, 3L, 10L, 30L, 1_000L);
      assertWindowsMatchBruteForce(analysis, trace, windowing, capacities, "seed " + seed);
    }
  }

  @Test
  void shouldReportTheEngineHitRateOverallPerModelAndPerWindow() {
    // Given
    MrcAnalyzer analyzer =
        MrcAnalyzer.builder().windows(Windowing.byRequests(2)).windowCapacities(4).build();
    analyzer.accept(LookupRequest.of(0, "a", new long[] {1}, 8, 10).withEngineTokens(10, 0));
    analyzer.accept(LookupRequest.of(1, "b", new long[] {1}, 8, 10).withEngineTokens(100, 50));
    analyzer.accept(LookupRequest.of(2, "a", new long[] {1}, 8, 10)); // unknown: not counted
    analyzer.accept(LookupRequest.of(3, "a", new long[] {1}, 8, 9).withEngineTokens(9, 8));

    // When
    Analysis analysis = analyzer.finish();

    // Then
    assertThat(analysis.overall().engine()).isEqualTo(new EngineTokenTotals(3, 119, 58));
    assertThat(analysis.overall().engine().hitRate()).isEqualTo(58.0 / 119);
    assertThat(analysis.model("a").orElseThrow().engine())
        .isEqualTo(new EngineTokenTotals(2, 19, 8));
    List<Window> windows = analysis.overall().windows();
    assertThat(windows).hasSize(2);
    assertThat(windows.get(0).window().engine()).isEqualTo(new EngineTokenTotals(2, 110, 50));
    assertThat(windows.get(1).window().engine()).isEqualTo(new EngineTokenTotals(1, 9, 8));
    assertThat(windows.get(1).cumulative().engine()).isEqualTo(new EngineTokenTotals(3, 119, 58));
    // predicted beside it: model a's own cache holds chunk 1 from its first request on
    assertThat(windows.get(1).window().hits(Semantics.PREFIX, 4)).isEqualTo(2);
    assertThat(windows.get(0).window().hitRate(Semantics.PREFIX, Weighting.UNITS, 4)).isZero();
    assertThat(new EngineTokenTotals(0, 0, 0).hitRate()).isNaN();
  }

  @Test
  void shouldEqualTheExactAnalysisWhenSamplingEveryKey() {
    // Given
    List<LookupRequest> trace = Traces.random(9, 2_000, 300, 16, 2, true);
    MrcAnalyzer exact =
        MrcAnalyzer.builder()
            .windows(Windowing.byRequests(100))
            .windowCapacities(5, 50, 500)
            .build();
    MrcAnalyzer sampled =
        MrcAnalyzer.builder()
            .sampling(Sampling.atRate(1.0))
            .windows(Windowing.byRequests(100))
            .windowCapacities(5, 50, 500)
            .build();

    // When
    trace.forEach(exact::accept);
    trace.forEach(sampled::accept);
    Analysis a = exact.finish();
    Analysis b = sampled.finish();

    // Then
    assertThat(b.sampling().isExact()).isTrue();
    for (int m = 0; m <= a.models().size(); m++) {
      ModelAnalysis x = m == a.models().size() ? a.overall() : a.models().get(m);
      ModelAnalysis y = m == a.models().size() ? b.overall() : b.models().get(m);
      assertThat(y.curve().totals()).isEqualTo(x.curve().totals());
      assertThat(y.curve().workingSet()).isEqualTo(x.curve().workingSet());
      for (long c = 0; c <= x.curve().workingSet() + 1; c++) {
        assertThat(y.curve().at(c)).isEqualTo(x.curve().at(c));
      }
      assertThat(y.windows()).isEqualTo(x.windows());
    }
  }

  @Test
  void shouldEstimateTheCurveFromASampleOfKeys() {
    // Given: 20,000 requests of up to 16 chunks over 30,000 keys
    List<LookupRequest> trace = Traces.skewed(11, 20_000, 30_000, 16);
    MrcAnalyzer exact = MrcAnalyzer.exact();
    MrcAnalyzer sampled = MrcAnalyzer.builder().sampling(Sampling.atRate(0.1)).build();

    // When
    trace.forEach(exact::accept);
    trace.forEach(sampled::accept);
    Curve x = exact.finish().overall().curve();
    Curve y = sampled.finish().overall().curve();

    // Then
    assertThat(y.sampling().rate()).isCloseTo(0.1, within(1e-6));
    assertThat(y.totals().accesses()).isEqualTo(x.totals().accesses());
    assertThat((double) y.totals().sampledAccesses() / x.totals().accesses())
        .isBetween(0.05, 0.2); // popular keys are in or out: lookups vary more than keys
    assertThat(y.totals().sampledRequests()).isLessThan(x.totals().requests());
    assertThat((double) y.workingSet() / x.workingSet()).isCloseTo(1, within(0.1));
    double error = 0;
    long[] capacities = Curve.logSpaced(20, x.saturationCapacity(Semantics.PER_CHUNK));
    for (long c : capacities) {
      error +=
          Math.abs(
              y.hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, c)
                  - x.hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, c));
    }
    assertThat(error / capacities.length).isLessThan(0.035);
    for (long c : new long[] {1_000, 10_000, 30_000}) {
      assertThat(y.hitRate(Semantics.PER_CHUNK, Weighting.UNITS, c))
          .isCloseTo(x.hitRate(Semantics.PER_CHUNK, Weighting.UNITS, c), within(0.03));
      assertThat(y.hits(Semantics.PER_CHUNK, c))
          .isCloseTo(x.hits(Semantics.PER_CHUNK, c), within(x.totals().accesses() / 30));
    }
    assertThat(y.hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, 9)).isZero(); // below 1 / rate
  }

  @Test
  void shouldKeepTheSemanticsIdenticalForChainedHashesWhenSampling() {
    // Given
    List<LookupRequest> trace = Traces.chained(8, 5_000, 60);
    MrcAnalyzer analyzer = MrcAnalyzer.builder().sampling(Sampling.atRate(0.25)).build();

    // When
    trace.forEach(analyzer::accept);
    Curve curve = analyzer.finish().overall().curve();

    // Then
    assertThat(curve.totals().sampledAccesses()).isLessThan(curve.totals().accesses());
    for (long c : Curve.logSpaced(30, curve.workingSet() + 10)) {
      assertThat(curve.at(c).prefix()).isEqualTo(curve.at(c).perChunk());
      assertThat(curve.at(c).prefixUnits()).isEqualTo(curve.at(c).perChunkUnits());
    }
  }

  @Test
  void shouldCountEmptyRequestsAndTailsAsMissesOnly() {
    // Given
    MrcAnalyzer analyzer = MrcAnalyzer.exact();
    analyzer.accept(LookupRequest.of(0, "m", new long[0], 256, 0)); // empty
    analyzer.accept(LookupRequest.of(1, "m", new long[0], 256, 200)); // a tail only
    analyzer.accept(LookupRequest.of(2, "m", new long[] {7}, 256, 256)); // one chunk
    analyzer.accept(LookupRequest.of(3, "m", new long[] {7}, 256, 300)); // one chunk + tail

    // When
    Curve curve = analyzer.finish().overall().curve();

    // Then
    assertThat(curve.totals()).isEqualTo(new Totals(4, 2, 512, 756, 2, 2, 512));
    assertThat(curve.hits(Semantics.PREFIX, 1)).isEqualTo(1);
    assertThat(curve.unitHits(Semantics.PREFIX, 1)).isEqualTo(256);
    assertThat(curve.hitRate(1)).isEqualTo(256.0 / 756);
    assertThat(curve.hitRate(Semantics.PREFIX, Weighting.CHUNKS, 1)).isEqualTo(0.5);
    assertThat(curve.points(30)).containsExactly(curve.at(1));
  }

  @Test
  void shouldGiveAZeroCurveWithoutRequests() {
    // When
    Analysis analysis = MrcAnalyzer.exact().finish();

    // Then
    Curve curve = analysis.overall().curve();
    assertThat(analysis.models()).isEmpty();
    assertThat(curve.totals()).isEqualTo(Totals.EMPTY);
    assertThat(curve.hitRate(100)).isZero();
    assertThat(curve.saturationCapacity(Semantics.PER_CHUNK)).isZero();
    assertThat(analysis.overall().engine().hitRate()).isNaN();
  }

  @Test
  void shouldKeepOneCachePerModel() {
    // Given: the same key under two models
    MrcAnalyzer analyzer = MrcAnalyzer.exact();
    analyzer.accept(LookupRequest.of(0, "a", new long[] {1}, 1, 1));
    analyzer.accept(LookupRequest.of(1, "b", new long[] {1}, 1, 1));
    analyzer.accept(LookupRequest.of(2, "a", new long[] {1}, 1, 1));

    // When
    Analysis analysis = analyzer.finish();

    // Then: b's lookup is cold in b's cache and does not push 1 down a's stack
    assertThat(analysis.models()).extracting(ModelAnalysis::model).containsExactly("a", "b");
    assertThat(analysis.model("a").orElseThrow().curve().hits(Semantics.PER_CHUNK, 1)).isEqualTo(1);
    assertThat(analysis.model("b").orElseThrow().curve().hits(Semantics.PER_CHUNK, 1)).isZero();
    assertThat(analysis.overall().curve().workingSet()).isEqualTo(2);
    assertThat(analysis.overall().curve().hits(Semantics.PER_CHUNK, 1)).isEqualTo(1);
  }

  @Test
  void shouldCountOutOfOrderRequestsInTheCurrentTimeWindow() {
    // Given
    MrcAnalyzer analyzer =
        MrcAnalyzer.builder().windows(Windowing.byTime(Duration.ofMillis(100))).build();
    analyzer.accept(LookupRequest.of(150, "m", new long[0], 1, 0));
    analyzer.accept(LookupRequest.of(250, "m", new long[0], 1, 0));
    analyzer.accept(LookupRequest.of(120, "m", new long[0], 1, 0)); // late
    analyzer.accept(LookupRequest.of(420, "m", new long[0], 1, 0));

    // When
    Analysis analysis = analyzer.finish();

    // Then
    assertThat(analysis.outOfOrderRequests()).isEqualTo(1);
    assertThat(analysis.overall().windows())
        .extracting(w -> List.of(w.index(), w.startMs(), w.endMs(), w.window().totals().requests()))
        .containsExactly(
            List.of(1L, 100L, 200L, 1L), List.of(2L, 200L, 300L, 2L), List.of(4L, 400L, 500L, 1L));
  }

  @Test
  void shouldRejectBadInputNamingTheValue() {
    MrcAnalyzer analyzer = MrcAnalyzer.exact();
    assertThatThrownBy(() -> LookupRequest.of(0, "m", new long[] {1, 2}, 256, 511))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("seqLen 511 is less than its 2 full chunks of 256 (512)");
    assertThatThrownBy(() -> LookupRequest.of(0, "m", new long[] {1}, -1, 5))
        .hasMessage("chunkWeight must be >= 0, got -1");
    assertThatThrownBy(() -> analyzer.accept(0, "m", new long[] {1}, 0, 2, 1, 2, -1, -1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> analyzer.accept(0, "m", new long[] {1}, 0, 1, 1, 2, -2, -1))
        .hasMessageContaining("got -2 and -1");
    assertThatThrownBy(() -> MrcAnalyzer.builder().windowCapacities(0))
        .hasMessage("window capacities must be >= 1, got 0");
    assertThatThrownBy(() -> MrcAnalyzer.builder().windowCapacities(4).build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Sampling.atRate(0))
        .hasMessage("sampling rate must be in (0, 1], got 0.0");
    analyzer.finish();
    assertThatThrownBy(() -> analyzer.accept(LookupRequest.of(0, "m", new long[0], 1, 0)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void shouldTakeAKeyRangeOfACallerArray() {
    // Given
    long[] buffer = {9, 1, 2, 9};
    MrcAnalyzer ranged = MrcAnalyzer.exact();
    MrcAnalyzer whole = MrcAnalyzer.exact();

    // When
    ranged.accept(0, "m", buffer, 1, 3, 4, 8, -1, -1);
    ranged.accept(1, "m", buffer, 1, 3, 4, 8, -1, -1);
    whole.accept(LookupRequest.of(0, "m", new long[] {1, 2}, 4, 8));
    whole.accept(LookupRequest.of(1, "m", new long[] {1, 2}, 4, 8));

    // Then
    Curve a = ranged.finish().overall().curve();
    Curve b = whole.finish().overall().curve();
    assertThat(a.points(1, 2, 3)).isEqualTo(b.points(1, 2, 3));
    assertThat(a.workingSet()).isEqualTo(2);
  }

  // --- the reference -------------------------------------------------------------------------

  /**
   * Hits per model and overall, at each capacity, from one naive LRU per (model, capacity): one
   * line per (model, capacity) on each side, so a mismatch names where.
   */
  static void assertMatchesNaive(
      Analysis analysis, List<LookupRequest> trace, long[] capacities, String what) {
    Set<String> models = new HashSet<>();
    trace.forEach(r -> models.add(r.model()));
    assertThat(analysis.models()).hasSize(models.size());
    List<String> expected = new ArrayList<>();
    List<String> actual = new ArrayList<>();
    for (long capacity : capacities) {
      Map<String, NaiveLru> naive = new TreeMap<>();
      for (LookupRequest request : trace) {
        naive.computeIfAbsent(request.model(), m -> new NaiveLru(capacity)).accept(request);
      }
      long[] overall = new long[4];
      for (NaiveLru reference : naive.values()) {
        long[] counts = counts(reference);
        for (int k = 0; k < 4; k++) {
          overall[k] += counts[k];
        }
      }
      for (ModelAnalysis model : analysis.models()) {
        NaiveLru reference = naive.get(model.model());
        String at = what + " model " + model.model() + " capacity " + capacity + ": ";
        expected.add(at + line(reference));
        actual.add(at + line(model.curve(), capacity));
      }
      Curve curve = analysis.overall().curve();
      String at = what + " overall capacity " + capacity + ": ";
      expected.add(at + Arrays.toString(overall));
      actual.add(
          at
              + Arrays.toString(
                  new long[] {
                    curve.hits(Semantics.PER_CHUNK, capacity),
                    curve.unitHits(Semantics.PER_CHUNK, capacity),
                    curve.hits(Semantics.PREFIX, capacity),
                    curve.unitHits(Semantics.PREFIX, capacity)
                  }));
    }
    assertThat(actual).containsExactlyElementsOf(expected);
  }

  private static String line(NaiveLru lru) {
    StringBuilder line = new StringBuilder();
    line.append(lru.accesses()).append(' ').append(lru.units());
    for (Semantics semantics : SEMANTICS) {
      line.append(" | ").append(lru.hits(semantics)).append(' ').append(lru.unitHits(semantics));
      for (Weighting weighting : Weighting.values()) {
        line.append(' ').append(lru.hitRate(semantics, weighting));
      }
    }
    return line.toString();
  }

  private static String line(Curve curve, long capacity) {
    StringBuilder line = new StringBuilder();
    line.append(curve.totals().accesses()).append(' ').append(curve.totals().units());
    for (Semantics semantics : SEMANTICS) {
      line.append(" | ")
          .append(curve.hits(semantics, capacity))
          .append(' ')
          .append(curve.unitHits(semantics, capacity));
      for (Weighting weighting : Weighting.values()) {
        line.append(' ').append(curve.hitRate(semantics, weighting, capacity));
      }
    }
    return line.toString();
  }

  /** Per request, per capacity: naive hits, grouped by the window rule, per model and overall. */
  private static void assertWindowsMatchBruteForce(
      Analysis analysis,
      List<LookupRequest> trace,
      Windowing windowing,
      long[] capacities,
      String what) {
    // window index of every request: the time rule never goes back
    long[] windowOf = new long[trace.size()];
    long current = Long.MIN_VALUE;
    for (int r = 0; r < trace.size(); r++) {
      long index =
          windowing.kind() == Windowing.Kind.TIME
              ? Math.floorDiv(trace.get(r).timestampMs(), windowing.size())
              : r / windowing.size();
      current = Math.max(current, index);
      windowOf[r] = current;
    }
    // [capacity][request] -> {perChunk hits, perChunk units, prefix hits, prefix units}
    long[][][] perRequest = new long[capacities.length][trace.size()][4];
    for (int c = 0; c < capacities.length; c++) {
      Map<String, NaiveLru> naive = new TreeMap<>();
      for (int r = 0; r < trace.size(); r++) {
        LookupRequest request = trace.get(r);
        long capacity = capacities[c];
        NaiveLru lru = naive.computeIfAbsent(request.model(), m -> new NaiveLru(capacity));
        long[] before = counts(lru);
        lru.accept(request);
        long[] after = counts(lru);
        for (int k = 0; k < 4; k++) {
          perRequest[c][r][k] = after[k] - before[k];
        }
      }
    }
    for (String model : modelsAndOverall(analysis)) {
      List<Window> windows =
          model.equals(ModelAnalysis.ALL_MODELS)
              ? analysis.overall().windows()
              : analysis.model(model).orElseThrow().windows();
      // expected: window index -> sums
      TreeMap<Long, long[]> expectedWindow = new TreeMap<>();
      for (int r = 0; r < trace.size(); r++) {
        LookupRequest request = trace.get(r);
        if (!model.equals(ModelAnalysis.ALL_MODELS) && !request.model().equals(model)) {
          continue;
        }
        long[] sums = expectedWindow.computeIfAbsent(windowOf[r], w -> new long[5 + 4 * 5]);
        sums[0]++;
        sums[1] += request.chunkCount();
        sums[2] += request.seqLen();
        if (request.promptTokens() >= 0) {
          sums[3] += request.promptTokens();
          sums[4] += request.cachedTokens();
        }
        for (int c = 0; c < capacities.length; c++) {
          for (int k = 0; k < 4; k++) {
            sums[5 + c * 4 + k] += perRequest[c][r][k];
          }
        }
      }
      assertThat(windows)
          .extracting(Window::index)
          .containsExactlyElementsOf(expectedWindow.keySet());
      long[] cumulative = new long[5 + 4 * 5];
      int w = 0;
      for (long[] sums : expectedWindow.values()) {
        for (int k = 0; k < sums.length; k++) {
          cumulative[k] += sums[k];
        }
        Window window = windows.get(w++);
        String at = what + " model " + model + " window " + window.index();
        assertThat(actual(window.window(), capacities)).as(at).containsExactly(sums);
        assertThat(actual(window.cumulative(), capacities))
            .as(at + " cumulative")
            .containsExactly(cumulative);
        if (windowing.kind() == Windowing.Kind.TIME) {
          assertThat(window.startMs()).isEqualTo(window.index() * windowing.size());
          assertThat(window.endMs()).isEqualTo(window.startMs() + windowing.size());
        }
      }
    }
  }

  private static List<String> modelsAndOverall(Analysis analysis) {
    List<String> names = new ArrayList<>();
    analysis.models().forEach(m -> names.add(m.model()));
    names.add(ModelAnalysis.ALL_MODELS);
    return names;
  }

  private static long[] actual(WindowHits tally, long[] capacities) {
    long[] values = new long[5 + 4 * capacities.length];
    values[0] = tally.totals().requests();
    values[1] = tally.totals().accesses();
    values[2] = tally.totals().units();
    values[3] = tally.engine().promptTokens();
    values[4] = tally.engine().cachedTokens();
    for (int c = 0; c < capacities.length; c++) {
      values[5 + c * 4] = tally.hits(Semantics.PER_CHUNK, capacities[c]);
      values[5 + c * 4 + 1] = tally.unitHits(Semantics.PER_CHUNK, capacities[c]);
      values[5 + c * 4 + 2] = tally.hits(Semantics.PREFIX, capacities[c]);
      values[5 + c * 4 + 3] = tally.unitHits(Semantics.PREFIX, capacities[c]);
    }
    return values;
  }

  private static long[] counts(NaiveLru lru) {
    return new long[] {
      lru.hits(Semantics.PER_CHUNK),
      lru.unitHits(Semantics.PER_CHUNK),
      lru.hits(Semantics.PREFIX),
      lru.unitHits(Semantics.PREFIX)
    };
  }
}
