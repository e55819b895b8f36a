package io.prefixlog.analysis.mrc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Exact LRU hit rate vs cache capacity for every capacity at once, in one pass over the lookup
 * records (Mattson stack distances, O(log n) per chunk lookup), with a windowed rolling hit rate at
 * chosen capacities, the engine's reported hit rate beside it, per model and overall, and optional
 * SHARDS sampling.
 *
 * <p><b>The cache being modelled.</b> Each model has its own LRU cache of C chunks (an engine
 * serves one model; its KV cache is its own), keyed by chunk hash. A request accesses every one of
 * its full chunks in prompt order, hits or not: a present chunk becomes most recently used, an
 * absent one is inserted (evicting the least recently used beyond C). That is also the state update
 * of LMCache's simulator ("access the hit prefix, insert the rest", where inserting a present chunk
 * refreshes it), and of {@link NaiveLru}. Chunk i's lookup is judged after chunks 0..i−1 of the
 * same request were accessed; for the leading run of hits this is the same as LMCache's judging all
 * of them before any access (hits evict nothing).
 *
 * <ul>
 *   <li>{@link Semantics#PER_CHUNK}: a lookup hits iff its stack distance (distinct chunks of this
 *       model accessed since its previous access, plus one) is ≤ C.
 *   <li>{@link Semantics#PREFIX}: a request hits only its leading run of cached chunks (LMCache's
 *       {@code hit_prefix}): chunk i hits iff the running maximum of distances 0..i is ≤ C.
 * </ul>
 *
 * With prefix-chained hashes (docs/design.md#records; LMCache's and vLLM's) the two coincide: every
 * request that holds chunk i holds chunks 0..i−1 right before it, so an earlier chunk's distance is
 * never larger than a later one's. They differ for keys that are not chained.
 *
 * <p><b>Overall.</b> The overall curve at capacity C is the sum over models of each model's hits
 * with its own cache of C chunks. For one cache shared by all models, give every request the same
 * model name (then equal hashes of different models are one entry).
 *
 * <p><b>Sampling.</b> With {@link Sampling#atRate} only the sampled keys are tracked (SHARDS). For
 * {@link Semantics#PREFIX} a request's running maximum then runs over its sampled chunks only, so
 * its unsampled chunks are taken to hit as their sampled neighbours do: with prefix-chained hashes
 * that is exact in expectation (the semantics coincide), with unchained keys it overestimates.
 *
 * <p>Requests must arrive in time order for the windows; the input order is the access order either
 * way. Not thread-safe. Memory per model while the pass runs: the key map (16 bytes per slot, at
 * most 70 % full: 23–46 bytes per distinct chunk), two histograms (8 bytes per possible distance
 * each, up to the distinct chunks: 16–24 bytes per distinct chunk) and the timeline bitmap (at most
 * 1 byte per distinct chunk); about 0.6 GB for 10 M distinct chunks. {@link #finish()} keeps only
 * the cumulative histograms (20 bytes per distinct distance) and releases the rest. With sampling,
 * the sampled share of that.
 */
public final class MrcAnalyzer implements LookupAnalyzer {
  private final Sampling sampling;
  private final Windowing windowing;
  private final long[] capacities;
  private final int[] limits;
  private final int timelineCapacity;
  private final int expectedKeys;

  private final Map<String, ModelState> models = new HashMap<>();
  private ModelState lastModel;

  private final TallyAccumulator overallCumulative;
  private final List<Window> overallWindows = new ArrayList<>();
  private final List<ModelState> windowModels = new ArrayList<>();
  private boolean windowOpen;
  private long windowIndex;
  private long windowFirstMs;
  private long windowLastMs;

  private long requestNumber;
  private long latestMs = Long.MIN_VALUE;
  private long outOfOrder;
  private final RequestIntake intake = new RequestIntake();

  private MrcAnalyzer(Builder builder) {
    this.sampling = builder.sampling;
    this.windowing = builder.windowing;
    this.capacities = builder.capacities;
    this.timelineCapacity = builder.timelineCapacity;
    this.expectedKeys = builder.expectedKeys;
    if (windowing.kind() == Windowing.Kind.NONE) {
      this.limits = null;
      this.overallCumulative = null;
    } else {
      this.limits = new int[capacities.length];
      for (int j = 0; j < capacities.length; j++) {
        limits[j] = sampling.distanceLimit(capacities[j]);
      }
      this.overallCumulative = new TallyAccumulator(limits);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** An exact analysis without windows. */
  public static MrcAnalyzer exact() {
    return builder().build();
  }

  @Override
  public void accept(
      long timestampMs,
      String model,
      long[] chunkKeys,
      int from,
      int to,
      long chunkWeight,
      long seqLen,
      long promptTokens,
      long cachedTokens) {
    intake.check(model, chunkKeys, from, to);
    LookupRequest.checkShape(to - from, chunkWeight, seqLen, promptTokens, cachedTokens);
    ModelState state = state(model);
    if (timestampMs < latestMs) {
      outOfOrder++;
    } else {
      latestMs = timestampMs;
    }
    if (limits != null) {
      advanceWindow(timestampMs, state);
    }
    requestNumber++;
    state.accept(chunkKeys, from, to, chunkWeight, seqLen, promptTokens, cachedTokens);
  }

  /** Ends the pass and returns the analysis; the analyzer takes no more requests. */
  public Analysis finish() {
    intake.finish();
    if (windowOpen) {
      closeWindow();
    }
    List<ModelState> states = new ArrayList<>(models.values());
    states.sort(Comparator.comparing(s -> s.model));
    List<ModelAnalysis> perModel = new ArrayList<>();
    List<Curve> curves = new ArrayList<>();
    EngineTokenTotals engine = EngineTokenTotals.NONE;
    for (ModelState state : states) {
      Curve curve = state.curve();
      state.release();
      curves.add(curve);
      engine = engine.plus(state.total.engine());
      perModel.add(new ModelAnalysis(state.model, curve, state.total.engine(), state.windows));
    }
    Curve overallCurve =
        curves.isEmpty()
            ? new Curve(sampling, Totals.EMPTY, 0, HitCdf.EMPTY, HitCdf.EMPTY)
            : Curve.sum(sampling, curves);
    ModelAnalysis overall =
        new ModelAnalysis(ModelAnalysis.ALL_MODELS, overallCurve, engine, overallWindows);
    return new Analysis(
        overall,
        perModel,
        sampling,
        windowing,
        Arrays.stream(limits == null ? new long[0] : capacities).boxed().toList(),
        outOfOrder);
  }

  /** Timeline renumberings so far, over all models (for tests and benchmarks). */
  long compactions() {
    return models.values().stream().mapToLong(ModelState::compactions).sum();
  }

  private ModelState state(String model) {
    ModelState last = lastModel;
    if (last != null && (last.model == model || last.model.equals(model))) {
      return last;
    }
    ModelState state =
        models.computeIfAbsent(
            model, m -> new ModelState(m, sampling, timelineCapacity, expectedKeys, limits));
    lastModel = state;
    return state;
  }

  private void advanceWindow(long timestampMs, ModelState state) {
    long index =
        windowing.kind() == Windowing.Kind.TIME
            ? Math.floorDiv(timestampMs, windowing.size())
            : requestNumber / windowing.size();
    if (windowOpen && index > windowIndex) {
      closeWindow();
    }
    if (!windowOpen) {
      windowOpen = true;
      windowIndex = index;
      windowFirstMs = timestampMs;
      windowLastMs = timestampMs;
    } else {
      windowFirstMs = Math.min(windowFirstMs, timestampMs);
      windowLastMs = Math.max(windowLastMs, timestampMs);
    }
    if (!state.inWindow) {
      state.inWindow = true;
      windowModels.add(state);
    }
  }

  private void closeWindow() {
    long startMs;
    long endMs;
    if (windowing.kind() == Windowing.Kind.TIME) {
      startMs = windowIndex * windowing.size();
      endMs = startMs + windowing.size();
    } else {
      startMs = windowFirstMs;
      endMs = windowLastMs;
    }
    TallyAccumulator overallWindow = new TallyAccumulator(limits);
    for (ModelState state : windowModels) {
      overallWindow.addAll(state.window);
      state.cumulative.addAll(state.window);
      state.windows.add(
          new Window(
              windowIndex,
              startMs,
              endMs,
              state.window.snapshot(sampling, capacities),
              state.cumulative.snapshot(sampling, capacities)));
      state.window.clear();
      state.inWindow = false;
    }
    windowModels.clear();
    overallCumulative.addAll(overallWindow);
    overallWindows.add(
        new Window(
            windowIndex,
            startMs,
            endMs,
            overallWindow.snapshot(sampling, capacities),
            overallCumulative.snapshot(sampling, capacities)));
    windowOpen = false;
  }

  /** How the analyzer samples, windows, and which capacities the windows report. */
  public static final class Builder {
    private Sampling sampling = Sampling.none();
    private Windowing windowing = Windowing.none();
    private long[] capacities = new long[0];
    private int timelineCapacity = 1 << 16;
    private int expectedKeys = 1 << 10;

    private Builder() {}

    public Builder sampling(Sampling sampling) {
      this.sampling = Objects.requireNonNull(sampling, "sampling");
      return this;
    }

    public Builder windows(Windowing windowing) {
      this.windowing = Objects.requireNonNull(windowing, "windowing");
      return this;
    }

    /** The capacities (in chunks, ≥ 1) at which the windows report hit rates. */
    public Builder windowCapacities(long... capacities) {
      long[] sorted = capacities.clone();
      Arrays.sort(sorted);
      for (long c : sorted) {
        if (c < 1) {
          throw new IllegalArgumentException("window capacities must be >= 1, got " + c);
        }
      }
      this.capacities = Arrays.stream(sorted).distinct().toArray();
      return this;
    }

    /** A sizing hint: distinct chunks expected per model (the map grows past it as needed). */
    public Builder expectedChunksPerModel(int expected) {
      if (expected < 0) {
        throw new IllegalArgumentException("expected chunks must be >= 0, got " + expected);
      }
      this.expectedKeys = expected;
      this.timelineCapacity =
          (int) Math.min(1 << 30, Math.max(1 << 16, (long) StackDistances.GROWTH * expected));
      return this;
    }

    /** The initial timeline per model; tests make it tiny to renumber often. */
    Builder timelineCapacity(int positions) {
      this.timelineCapacity = positions;
      return this;
    }

    public MrcAnalyzer build() {
      if (windowing.kind() == Windowing.Kind.NONE && capacities.length > 0) {
        throw new IllegalStateException("window capacities need windows: set windows(...)");
      }
      return new MrcAnalyzer(this);
    }
  }
}
