package io.prefixlog.analysis.mrc;

/**
 * The hit rates at one capacity (in chunks).
 *
 * @param capacity cache capacity in chunks (per model)
 * @param perChunk {@link Semantics#PER_CHUNK}, {@link Weighting#CHUNKS}
 * @param perChunkUnits {@link Semantics#PER_CHUNK}, {@link Weighting#UNITS}
 * @param prefix {@link Semantics#PREFIX}, {@link Weighting#CHUNKS}
 * @param prefixUnits {@link Semantics#PREFIX}, {@link Weighting#UNITS}: LMCache's token hit rate
 */
public record CurvePoint(
    long capacity, double perChunk, double perChunkUnits, double prefix, double prefixUnits) {

  public double hitRate(Semantics semantics, Weighting weighting) {
    if (semantics == Semantics.PER_CHUNK) {
      return weighting == Weighting.CHUNKS ? perChunk : perChunkUnits;
    }
    return weighting == Weighting.CHUNKS ? prefix : prefixUnits;
  }
}
