package io.prefixlog.core.delta;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The records a session has in the stream app's bases store, oldest first. A record is either the
 * whole body of its turn or the ops that rebuild that body from the record just before it in this
 * log: the store holds a chain of deltas, not a body per turn, so that its changelog carries about
 * what the deltas topic carries rather than every body again.
 *
 * <p>A base is read by taking the nearest whole record at or before it and applying the ops records
 * up to it ({@link #pathTo}); {@link #retainFor} keeps exactly what the kept bases need. A state
 * written before this log existed (state format 2 and older) stored every base as a whole body
 * under its own key: {@link #RAW_BODIES} marks it, and the stream app replaces such a state by a
 * new chain.
 */
public final class BaseLog {
  /** One record of the store: the turn it rebuilds and whether it holds the whole body. */
  public record Entry(long seq, boolean whole) {}

  /** No record stored. */
  public static final BaseLog EMPTY = new BaseLog(List.of(), false);

  /** A state of an older format: its bases are whole bodies under their keys, not in a log. */
  public static final BaseLog RAW_BODIES = new BaseLog(List.of(), true);

  private final List<Entry> entries;
  private final boolean rawBodies;

  private BaseLog(List<Entry> entries, boolean rawBodies) {
    this.entries = List.copyOf(entries);
    this.rawBodies = rawBodies;
  }

  /** A log of these entries, oldest first; the first must be whole. */
  public static BaseLog of(List<Entry> entries) {
    if (entries.isEmpty()) {
      return EMPTY;
    }
    if (!entries.get(0).whole()) {
      throw new IllegalArgumentException("a base log starts with a whole record: " + entries);
    }
    for (int i = 1; i < entries.size(); i++) {
      if (entries.get(i).seq() <= entries.get(i - 1).seq()) {
        throw new IllegalArgumentException("base log seqs must increase: " + entries);
      }
    }
    return new BaseLog(entries, false);
  }

  public List<Entry> entries() {
    return entries;
  }

  /** Whether this is {@link #RAW_BODIES}. */
  public boolean rawBodies() {
    return rawBodies;
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The newest record, or null. */
  public Entry newest() {
    return entries.isEmpty() ? null : entries.get(entries.size() - 1);
  }

  /** Ops records stored since the newest whole one. */
  public int sinceWhole() {
    int count = 0;
    for (int i = entries.size() - 1; i >= 0 && !entries.get(i).whole(); i--) {
      count++;
    }
    return count;
  }

  /**
   * The records to read to rebuild {@code seq}: the nearest whole record at or before it, then
   * every record up to it. Empty when {@code seq} is not in the log.
   */
  public List<Entry> pathTo(long seq) {
    int at = indexOf(seq);
    if (at < 0) {
      return List.of();
    }
    int from = at;
    while (!entries.get(from).whole()) {
      from--;
    }
    return entries.subList(from, at + 1);
  }

  /** The log with {@code entry} appended (it must be newer than every entry). */
  public BaseLog append(Entry entry) {
    Objects.requireNonNull(entry, "entry");
    if (rawBodies) {
      throw new IllegalStateException("an older state's bases are not in a log");
    }
    List<Entry> next = new ArrayList<>(entries.size() + 1);
    next.addAll(entries);
    next.add(entry);
    return of(next);
  }

  /**
   * Keeps the records that {@code bases} need: from the nearest whole record at or before the
   * oldest of them through the newest record. The seqs of the records dropped are added to {@code
   * dropped}, for the caller to delete.
   */
  public BaseLog retainFor(List<BaseInfo> bases, List<Long> dropped) {
    if (rawBodies) {
      throw new IllegalStateException("an older state's bases are not in a log");
    }
    int keepFrom = entries.size();
    if (!bases.isEmpty()) {
      long oldest = Long.MAX_VALUE;
      for (BaseInfo base : bases) {
        oldest = Math.min(oldest, base.seq());
      }
      int at = indexOf(oldest);
      if (at < 0) {
        throw new IllegalStateException("base " + oldest + " is not in the base log " + entries);
      }
      keepFrom = at;
      while (!entries.get(keepFrom).whole()) {
        keepFrom--;
      }
    }
    if (keepFrom == 0) {
      return this;
    }
    for (int i = 0; i < keepFrom; i++) {
      dropped.add(entries.get(i).seq());
    }
    return of(entries.subList(keepFrom, entries.size()));
  }

  private int indexOf(long seq) {
    for (int i = entries.size() - 1; i >= 0; i--) {
      if (entries.get(i).seq() == seq) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BaseLog other
        && rawBodies == other.rawBodies
        && entries.equals(other.entries);
  }

  @Override
  public int hashCode() {
    return entries.hashCode() * 31 + Boolean.hashCode(rawBodies);
  }

  @Override
  public String toString() {
    return rawBodies ? "BaseLog[raw bodies]" : "BaseLog" + entries;
  }
}
