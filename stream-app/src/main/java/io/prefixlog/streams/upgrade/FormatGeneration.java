package io.prefixlog.streams.upgrade;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The version of every {@link WireFormat} that a build of one format generation writes. A build of
 * generation {@code n} reads every version of generations up to {@code n}.
 *
 * @param number the generation, from 1; what {@code PREFIXLOG_UPGRADE_FROM} names
 * @param versions a version (from 1) for each format, none left out
 */
public record FormatGeneration(int number, Map<WireFormat, Integer> versions) {
  public FormatGeneration {
    if (number < 1) {
      throw new IllegalArgumentException("a generation number is at least 1, got " + number);
    }
    Objects.requireNonNull(versions, "versions");
    Set<WireFormat> missing = EnumSet.allOf(WireFormat.class);
    missing.removeAll(versions.keySet());
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "format generation " + number + " has no version of " + missing);
    }
    versions.forEach(
        (format, version) -> {
          if (version == null || version < 1) {
            throw new IllegalArgumentException(
                "format generation " + number + " gives " + format + " version " + version);
          }
        });
    versions = Collections.unmodifiableMap(new EnumMap<>(versions));
  }

  /** The version of {@code format} this generation writes. */
  public int version(WireFormat format) {
    return versions.get(Objects.requireNonNull(format, "format"));
  }

  /** The next generation: this one's versions, but {@code format} at {@code version}. */
  public FormatGeneration next(WireFormat format, int version) {
    return next(Map.of(Objects.requireNonNull(format, "format"), version));
  }

  /**
   * The next generation: this one's versions, but each format of {@code changes} at its version
   * there (formats whose new versions only make sense together).
   */
  public FormatGeneration next(Map<WireFormat, Integer> changes) {
    Objects.requireNonNull(changes, "changes");
    Map<WireFormat, Integer> changed = new EnumMap<>(versions);
    changed.putAll(changes);
    return new FormatGeneration(number + 1, changed);
  }
}
