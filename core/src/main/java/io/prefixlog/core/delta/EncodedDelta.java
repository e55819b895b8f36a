package io.prefixlog.core.delta;

import io.prefixlog.core.text.CodePointIndex;
import io.prefixlog.schemas.delta.DeltaOp;
import java.util.List;

/**
 * The ops that rebuild a target from a base, with what they cost.
 *
 * @param ops copy and insert operations, offsets in code points of the base
 * @param prefixCodePoints code points shared with the base from the start
 * @param copiedBytes target bytes covered by copies
 * @param insertedBytes target bytes carried literally by inserts
 * @param targetIndex the target's code-point index, extended from the base's over the prefix they
 *     share, for when the target becomes a base in turn; null when not built
 */
public record EncodedDelta(
    List<DeltaOp> ops,
    long prefixCodePoints,
    long copiedBytes,
    long insertedBytes,
    CodePointIndex targetIndex) {

  public EncodedDelta {
    ops = List.copyOf(ops);
  }

  /** A delta without its target's index. */
  public EncodedDelta(
      List<DeltaOp> ops, long prefixCodePoints, long copiedBytes, long insertedBytes) {
    this(ops, prefixCodePoints, copiedBytes, insertedBytes, null);
  }

  /** Share of the target carried literally: 0 for an exact copy, 1 for all-new text. */
  public double insertedFraction() {
    long total = copiedBytes + insertedBytes;
    return total == 0 ? 0.0 : (double) insertedBytes / total;
  }
}
