package io.prefixlog.streams.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The deletion of a cleared source's blocks, across commits. AllBlocksCleared, a gap or a restart
 * marker clears every block of a source, and a source can hold millions (an engine's GPU cache and
 * its offload tiers): tombstoning them all in the transaction of the record that cleared them would
 * make that transaction as large as the source. So a clear starts a {@link ClearJob}, and {@link
 * #step} deletes at most a budget of blocks at a time, in key order from the job's cursor, one step
 * in the clear's own transaction and the rest in bulk punctuations, the cursor saved with each
 * step.
 *
 * <p>Meanwhile the source goes on, and its batches must see it as empty from the clear on: a stored
 * value the deletion has not reached ({@link ClearJob#ahead}) is from before the clear unless the
 * block carries the job's mark, which a batch writes for each block it stores there (and the
 * deletion drops as it passes). A second clear while a job is under way starts the job again with
 * the next epoch, which leaves every earlier mark meaningless; those go once the deletion has
 * passed every block.
 */
final class SourceClearing {
  private static final StringSerializer KEYS = new StringSerializer();
  private static final byte[] EMPTY = new byte[0];

  /** Where a step's tombstones go. */
  interface Tombstones {
    void block(String key, long timestamp);
  }

  private final KeyValueStore<String, byte[]> store;
  private final Map<String, ClearJob> jobs = new TreeMap<>();

  /** Loads the jobs under way in the task's store. */
  SourceClearing(KeyValueStore<String, byte[]> store) {
    this.store = store;
    try (KeyValueIterator<String, byte[]> found = store.prefixScan(ClearJob.KEY_PREFIX, KEYS)) {
      while (found.hasNext()) {
        ClearJob job = ClearJob.decode(found.next().value);
        jobs.put(job.source, job);
      }
    }
  }

  /** The job under way for the source, or null. */
  ClearJob job(String source) {
    return jobs.get(source);
  }

  List<ClearJob> jobs() {
    return List.copyOf(jobs.values());
  }

  /**
   * A clear of the source: a job from its first block, after any under way. Not under way itself
   * until {@link #begin}, which the batch calls once it writes: a batch that fails before that is a
   * dead letter and must leave no clear behind.
   *
   * @param current the job the batch knows for the source (one it began itself, or the one under
   *     way), or null
   */
  ClearJob clear(ClearJob current, String source, long timestamp) {
    return new ClearJob(source, current == null ? 1 : current.epoch + 1, timestamp);
  }

  /** A clear's job is under way from now on (it replaces the source's job before it). */
  void begin(ClearJob job) {
    jobs.put(job.source, job);
  }

  /**
   * Whether the block stored at {@code key} is from before the source's clear under way (it then
   * counts as absent).
   */
  boolean stale(ClearJob job, String key) {
    return job != null && job.ahead(key) && store.get(job.markKey(key)) == null;
  }

  /** Marks a block a batch stored where the deletion has not been yet, so that it is kept. */
  void stored(ClearJob job, String key) {
    if (job != null && job.ahead(key)) {
      store.put(job.markKey(key), EMPTY);
    }
  }

  /** A block a batch deleted where the deletion has not been yet: its mark goes too. */
  void deleted(ClearJob job, String key) {
    if (job != null && job.ahead(key)) {
      store.delete(job.markKey(key));
    }
  }

  /**
   * Deletes up to {@code budget} keys of the job: the blocks from its cursor on (a marked one is
   * kept and its mark dropped), then the marks of earlier epochs. Sets {@link ClearJob#finished}
   * when nothing is left.
   *
   * @return the keys passed or deleted
   */
  int step(ClearJob job, int budget, Tombstones out) {
    int done = 0;
    if (!job.marksPhase) {
      String prefix = job.source + "/";
      String from = job.cursor == null ? prefix : job.cursor;
      // Hex digits sort below 'g': past it are marks ('~') and other sources' keys, no block.
      String to = prefix + "g";
      List<String> stale = new ArrayList<>();
      List<String> marks = new ArrayList<>();
      boolean end;
      try (KeyValueIterator<String, byte[]> blocks = store.range(from, to)) {
        while (done < budget && blocks.hasNext()) {
          KeyValue<String, byte[]> block = blocks.next();
          if (block.key.equals(job.cursor)) {
            continue; // passed by the step before
          }
          job.cursor = block.key;
          done++;
          if (!KvBatchCheck.isHex(block.key.substring(prefix.length()))) {
            continue; // a block of another source whose id extends this one
          }
          String mark = job.markKey(block.key);
          if (store.get(mark) != null) {
            marks.add(mark); // stored after the clear: kept
          } else {
            stale.add(block.key);
          }
        }
        end = !blocks.hasNext();
      }
      marks.forEach(store::delete);
      for (String key : stale) {
        store.delete(key);
        out.block(key, job.clearTs);
      }
      job.blocksDeleted += stale.size();
      if (end) {
        job.marksPhase = true;
        job.cursor = null;
      }
    }
    if (job.marksPhase && done < budget) {
      List<String> marks = new ArrayList<>();
      boolean end;
      try (KeyValueIterator<String, byte[]> found = store.prefixScan(job.marksPrefix(), KEYS)) {
        while (done + marks.size() < budget && found.hasNext()) {
          marks.add(found.next().key);
        }
        end = !found.hasNext();
      }
      marks.forEach(store::delete);
      done += marks.size();
      job.finished = end;
    }
    return done;
  }

  /** Records the job's progress, in the same transaction as its step. */
  void save(ClearJob job) {
    store.put(job.key(), job.encode());
  }

  /** The job is done: it leaves the store. */
  void finish(ClearJob job) {
    store.delete(job.key());
    jobs.remove(job.source);
  }
}
