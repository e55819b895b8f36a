package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.Analysis;
import io.prefixlog.analysis.mrc.Curve;
import io.prefixlog.analysis.mrc.ModelAnalysis;
import io.prefixlog.analysis.mrc.OptimalCurves;
import io.prefixlog.analysis.mrc.Semantics;
import io.prefixlog.analysis.mrc.Weighting;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One analysed cache as the outputs show it: a model, or all models together, with the unit its
 * weighted rates count and the KV bytes of one of its chunks when known.
 *
 * @param analysis what the pass computed
 * @param name the model (cache) name, or {@link #OVERALL}
 * @param unit {@code tokens} or {@code bytes}; null for an overall analysis of caches in different
 *     units (then weighted rates add tokens to bytes and are not shown)
 * @param chunkSize units per chunk, or 0 when the records disagree
 * @param kvBytesPerChunk KV-cache bytes of one chunk, or 0 when unknown
 * @param kvBytesSource where {@code kvBytesPerChunk} comes from
 * @param optimal the optimal (Belady/MIN) curve of the same cache, or null when not computed
 */
record Subject(
    ModelAnalysis analysis,
    String name,
    String unit,
    int chunkSize,
    long kvBytesPerChunk,
    String kvBytesSource,
    Curve optimal) {

  /** The name of the analysis of all models together. */
  static final String OVERALL = "all models";

  /** Fractions of the achievable hit rate whose capacities the report gives. */
  static final double[] FRACTIONS = {0.5, 0.9, 0.99};

  Subject {
    Objects.requireNonNull(analysis, "analysis");
    Objects.requireNonNull(name, "name");
  }

  /**
   * The subjects of an analysis: every model, and all models together first when there is more than
   * one.
   *
   * @param bytesPerChunk {@code --bytes-per-chunk}, or 0 to take LMCache's shapes × dtypes
   */
  static List<Subject> of(Analysis analysis, Map<String, CacheInfo> caches, long bytesPerChunk) {
    return of(analysis, null, caches, bytesPerChunk);
  }

  /**
   * The subjects, each with its optimal curve from {@code optimal} (null: none computed).
   *
   * @param bytesPerChunk {@code --bytes-per-chunk}, or 0 to take LMCache's shapes × dtypes
   */
  static List<Subject> of(
      Analysis analysis, OptimalCurves optimal, Map<String, CacheInfo> caches, long bytesPerChunk) {
    List<Subject> models = new ArrayList<>();
    for (ModelAnalysis model : analysis.models()) {
      CacheInfo info = caches.get(model.model());
      if (info == null) {
        throw new IllegalStateException("no cache info for model " + model.model());
      }
      long kv = bytesPerChunk > 0 ? bytesPerChunk : info.kvBytesPerChunk();
      String source =
          bytesPerChunk > 0
              ? "--bytes-per-chunk"
              : info.kvBytesPerChunk() > 0 ? "LMCache shapes x dtypes" : null;
      models.add(
          new Subject(
              model,
              model.model(),
              info.unit().wireName(),
              info.mixedChunkSizes() ? 0 : info.chunkSize(),
              kv,
              source,
              optimal == null ? null : optimal.curve(model.model()).orElse(null)));
    }
    if (models.size() <= 1) {
      return models;
    }
    String unit = models.get(0).unit();
    int chunkSize = models.get(0).chunkSize();
    long kv = models.get(0).kvBytesPerChunk();
    String source = models.get(0).kvBytesSource();
    for (Subject s : models) {
      unit = Objects.equals(unit, s.unit()) ? unit : null;
      chunkSize = chunkSize == s.chunkSize() ? chunkSize : 0;
      if (kv != s.kvBytesPerChunk()) {
        kv = 0;
        source = null;
      }
    }
    List<Subject> all = new ArrayList<>();
    all.add(
        new Subject(
            analysis.overall(),
            OVERALL,
            unit,
            chunkSize,
            kv,
            source,
            optimal == null ? null : optimal.overall()));
    all.addAll(models);
    return all;
  }

  Curve curve() {
    return analysis.curve();
  }

  boolean overall() {
    return analysis.model().equals(ModelAnalysis.ALL_MODELS);
  }

  /** Whether weighted rates mean something (one unit). */
  boolean weighted() {
    return unit != null;
  }

  /** The headline rate: prefix semantics, weighted by units (LMCache's token hit rate). */
  Weighting headlineWeighting() {
    return weighted() ? Weighting.UNITS : Weighting.CHUNKS;
  }

  /** {@code tokens}, {@code bytes}, or {@code chunks} when units are mixed. */
  String headlineUnit() {
    return weighted() ? unit : "chunks";
  }

  /** A capacity in chunks, with its KV bytes when known: {@code 12,345 chunks (1.51 GiB)}. */
  String capacity(long chunks) {
    String text = String.format(Locale.ROOT, "%,d %s", chunks, chunks == 1 ? "chunk" : "chunks");
    return kvBytesPerChunk > 0
        ? text + " (" + Quantities.binaryBytes((double) chunks * kvBytesPerChunk) + ")"
        : text;
  }

  /**
   * The smallest capacity at which the headline rate reaches {@code fraction} of its unbounded
   * value, or 0 when nothing ever hits. Hit rates never fall as an LRU cache grows (the inclusion
   * property, and a request's leading run of hits only grows), so a binary search finds it.
   */
  long capacityFor(double fraction) {
    return capacityFor(curve(), Semantics.PREFIX, headlineWeighting(), fraction);
  }

  static long capacityFor(Curve curve, Semantics semantics, Weighting weighting, double fraction) {
    double max = curve.maxHitRate(semantics, weighting);
    if (!(max > 0)) {
      return 0;
    }
    double target = fraction * max * (1 - 1e-12);
    long lo = 1;
    long hi = Math.max(1, curve.saturationCapacity(semantics));
    while (lo < hi) {
      long mid = lo + (hi - lo) / 2;
      if (curve.hitRate(semantics, weighting, mid) >= target) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /**
   * The smallest capacity the analysis resolves: 1 chunk when exact; with SHARDS sampling at rate
   * R, ⌈1/R⌉ chunks (a sampled stack distance of 1 stands for 1/R chunks).
   */
  static long minCapacity(io.prefixlog.analysis.mrc.Sampling sampling) {
    return sampling.isExact() ? 1 : (long) Math.ceil(1 / sampling.rate());
  }

  /** A file-name-safe form of the name, for per-model charts. */
  String slug() {
    String slug = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]+", "-");
    slug = slug.replaceAll("^-+|-+$", "");
    return slug.isEmpty() ? "model" : slug;
  }
}
