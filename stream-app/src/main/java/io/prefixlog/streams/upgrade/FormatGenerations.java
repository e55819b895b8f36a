package io.prefixlog.streams.upgrade;

import static java.util.Map.entry;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The format generations a build knows, oldest first, and the rule of a rolling upgrade: write the
 * newest generation's formats, unless {@code PREFIXLOG_UPGRADE_FROM} names the generation of the
 * build being replaced, whose formats every member of a mixed group reads. Kafka Streams' own
 * {@code upgrade.from} follows the same pattern: roll once with it (the new build reads both and
 * writes the old), then once without (every member now reads the new).
 *
 * <p>A change of a format adds a generation to {@link #KNOWN}: the newest generation's versions
 * with that format's new version, and the code that writes the old version while an older
 * generation is to be written. Reading code for an older version stays as long as that generation
 * is listed here.
 */
public final class FormatGenerations {
  /**
   * The generation of every build before members recorded what they read: a running member that has
   * no registration ({@link GroupGuard}) reads and writes this generation only.
   */
  public static final int UNREGISTERED = 1;

  /**
   * The generation of every build before chunk lookup records listed only their new hashes: the
   * version of each format as it was first written.
   */
  private static final FormatGeneration FIRST =
      new FormatGeneration(
          1,
          Map.ofEntries(
              entry(WireFormat.SESSION_STATE, 3),
              entry(WireFormat.SESSION_BASE, 1),
              entry(WireFormat.ERASURE_JOB, 1),
              entry(WireFormat.SEEN_REQUEST, 1),
              entry(WireFormat.KV_BLOCK_STATE, 1),
              entry(WireFormat.KV_CLEAR_JOB, 1),
              entry(WireFormat.KV_SOURCE_STATS_STATE, 1),
              entry(WireFormat.SOURCE_POSITION, 1),
              entry(WireFormat.DELTA_RECORD, 3),
              entry(WireFormat.CHUNK_LOOKUP, 1),
              entry(WireFormat.REQUEST_METADATA, 1),
              entry(WireFormat.DEAD_LETTER, 1),
              entry(WireFormat.ERASURE_ACK, 1),
              entry(WireFormat.BLOCK_INDEX_ENTRY, 1),
              entry(WireFormat.SOURCE_STATS, 1)));

  /**
   * Generation 2: lookup records that list only the hashes after those shared with the previous
   * turn.
   */
  private static final FormatGeneration SECOND = FIRST.next(WireFormat.CHUNK_LOOKUP, 2);

  /**
   * Generation 3: captures deduplicated by their identity ({@code capture_id}, or {@code
   * request_id} and {@code ts}) without the entry under the request id alone that earlier builds
   * look up, and request metadata records with {@code client_request_id}, which links the attempts
   * of a retried request (each now stored).
   */
  private static final FormatGeneration THIRD =
      SECOND.next(Map.of(WireFormat.SEEN_REQUEST, 2, WireFormat.REQUEST_METADATA, 2));

  /**
   * Generation 4: request metadata records that name their tenant, so that a session whose every
   * turn was left out is found by its tenant too.
   */
  private static final FormatGeneration FOURTH = THIRD.next(WireFormat.REQUEST_METADATA, 3);

  /** The generations of this build, each the one before with formats moved on. */
  public static final FormatGenerations KNOWN =
      new FormatGenerations(List.of(FIRST, SECOND, THIRD, FOURTH));

  private final List<FormatGeneration> generations;

  /**
   * @param generations consecutive generation numbers, oldest first; no version goes down from one
   *     generation to the next, and each changes at least one
   */
  public FormatGenerations(List<FormatGeneration> generations) {
    Objects.requireNonNull(generations, "generations");
    if (generations.isEmpty()) {
      throw new IllegalArgumentException("at least one format generation is needed");
    }
    for (int i = 1; i < generations.size(); i++) {
      FormatGeneration before = generations.get(i - 1);
      FormatGeneration after = generations.get(i);
      if (after.number() != before.number() + 1) {
        throw new IllegalArgumentException(
            "format generation " + after.number() + " follows " + before.number());
      }
      if (after.versions().equals(before.versions())) {
        throw new IllegalArgumentException(
            "format generation " + after.number() + " changes no format");
      }
      for (WireFormat format : WireFormat.values()) {
        if (after.version(format) < before.version(format)) {
          throw new IllegalArgumentException(
              "format generation "
                  + after.number()
                  + " writes "
                  + format
                  + " version "
                  + after.version(format)
                  + ", older than generation "
                  + before.number()
                  + "'s "
                  + before.version(format));
        }
      }
    }
    this.generations = List.copyOf(generations);
  }

  /** The generation a build writes once every member runs it. */
  public FormatGeneration newest() {
    return generations.get(generations.size() - 1);
  }

  /**
   * The generation to write: the newest, or with {@code upgradeFrom} (the generation of the build
   * being replaced), that one.
   *
   * @param upgradeFrom a generation of {@link #numbers()}, or null
   */
  public FormatGeneration toWrite(Integer upgradeFrom) {
    if (upgradeFrom == null) {
      return newest();
    }
    for (FormatGeneration generation : generations) {
      if (generation.number() == upgradeFrom) {
        return generation;
      }
    }
    throw new IllegalArgumentException(
        "format generation " + upgradeFrom + " is not one of " + accepted());
  }

  /** The generations this build reads and can write, oldest first. */
  public List<Integer> numbers() {
    return generations.stream().map(FormatGeneration::number).toList();
  }

  /** The type of {@code PREFIXLOG_UPGRADE_FROM}: one of {@link #numbers()}. */
  public ConfigType<Integer> settingType() {
    return new ConfigType<>() {
      @Override
      public Integer parse(String key, String raw) {
        try {
          return check(key, Integer.parseInt(raw.trim()));
        } catch (NumberFormatException e) {
          throw refusal(key, raw);
        }
      }

      @Override
      public Integer check(String key, Integer value) {
        if (value == null || !numbers().contains(value)) {
          throw refusal(key, String.valueOf(value));
        }
        return value;
      }

      @Override
      public String format(Integer value) {
        return value.toString();
      }

      @Override
      public String describe() {
        return "format generation " + accepted();
      }
    };
  }

  private ConfigException refusal(String key, String raw) {
    return new ConfigException(
        key
            + "="
            + raw
            + ": expected the format generation of the build being upgraded from, one of "
            + accepted()
            + " (the generations this build reads)");
  }

  /**
   * The numbers as the docs and errors write them: {@code 1}, {@code 1 or 2}, {@code 1, 2 or 3}.
   */
  private String accepted() {
    List<String> names = new ArrayList<>(numbers().stream().map(String::valueOf).toList());
    String last = names.remove(names.size() - 1);
    return names.isEmpty() ? last : String.join(", ", names) + " or " + last;
  }
}
