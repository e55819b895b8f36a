package io.prefixlog.benchmarks.delta;

import com.github.luben.zstd.ZstdCompressCtx;
import java.util.List;

/**
 * The order records reach the producer, as indices into the session-major list of turns, and the
 * marginal cost of each record in that stream.
 */
final class ProduceOrder {
  private ProduceOrder() {}

  /**
   * Round-robin over {@code k} concurrent sessions, as the replay tool's {@code --interleave K}
   * sends them: each round, every active session sends its next turn; a finished session's slot
   * goes to the next session in file order (the plan of tools' {@code InterleavePlan}). {@code k =
   * 1} is file order, sessions one after another.
   */
  static int[] interleaved(List<Integer> turnsPerSession, int k) {
    int sessions = turnsPerSession.size();
    int[] offset = new int[sessions];
    int total = 0;
    for (int s = 0; s < sessions; s++) {
      offset[s] = total;
      total += turnsPerSession.get(s);
    }
    int[] order = new int[total];
    int[] slot = new int[k];
    int[] position = new int[k];
    int next = 0;
    int active = 0;
    for (int i = 0; i < k; i++) {
      slot[i] = next < sessions ? next++ : -1;
      active += slot[i] >= 0 ? 1 : 0;
    }
    int emitted = 0;
    while (active > 0) {
      for (int i = 0; i < k; i++) {
        if (slot[i] < 0) {
          continue;
        }
        order[emitted++] = offset[slot[i]] + position[i]++;
        if (position[i] == turnsPerSession.get(slot[i])) {
          position[i] = 0;
          slot[i] = next < sessions ? next++ : -1;
          active -= slot[i] < 0 ? 1 : 0;
        }
      }
    }
    return order;
  }

  /**
   * What each record adds to its producer batch: its zstd -3 size with the records before it in the
   * same {@link ProducerBatches} group as dictionary. Sums to about the batches' total; used to
   * tell which turns cost what.
   *
   * @return bytes per record, indexed like {@code records}
   */
  static int[] marginalCost(List<byte[]> records, int[] order) {
    int[] cost = new int[records.size()];
    try (ZstdCompressCtx withGroup = context();
        ZstdCompressCtx alone = context()) {
      byte[] group = new byte[ProducerBatches.GROUP_BYTES];
      int filled = 0;
      for (int index : order) {
        byte[] record = records.get(index);
        if (filled > 0 && filled + record.length > ProducerBatches.GROUP_BYTES) {
          filled = 0;
        }
        if (filled == 0) {
          cost[index] = alone.compress(record).length;
        } else {
          withGroup.loadDict(java.util.Arrays.copyOf(group, filled));
          cost[index] = withGroup.compress(record).length;
        }
        if (record.length <= ProducerBatches.GROUP_BYTES) {
          System.arraycopy(record, 0, group, filled, record.length);
          filled += record.length;
        }
      }
    }
    return cost;
  }

  private static ZstdCompressCtx context() {
    return new ZstdCompressCtx()
        .setLevel(ProducerBatches.LEVEL)
        .setContentSize(true)
        .setChecksum(false);
  }
}
