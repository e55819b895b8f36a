package io.prefixlog.deploy;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which image references count as pinned: a digest ({@code @sha256:…}), or a tag that names one
 * release — a version with at least major.minor ({@code 4.3.1}, {@code 17.6}, {@code v0.26.0},
 * {@code 17.0.17_10-jre-noble}) or a MinIO release timestamp ({@code
 * RELEASE.2025-09-07T16-13-09Z}). Moving tags are not: none (which means {@code latest}), {@code
 * latest}, {@code stable}, a major version alone ({@code 17}, {@code 17-jre}).
 */
final class ImagePolicy {
  private static final Pattern REFERENCE =
      Pattern.compile(
          "(?<name>[^:@]+(?::\\d+/[^:@]+)?)(?::(?<tag>[\\w][\\w.-]*))?(?:@(?<digest>.+))?");
  private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
  private static final Pattern RELEASE_TAG =
      Pattern.compile("v?\\d+\\.\\d+([._+-][\\w.+-]*)?|RELEASE\\.\\d{4}-\\d{2}-\\d{2}T[\\w-]+Z");

  private ImagePolicy() {}

  /** Why {@code image} is not pinned, or empty when it is. */
  static Optional<String> problem(String image) {
    Matcher m = REFERENCE.matcher(image);
    if (!m.matches()) {
      return Optional.of("'" + image + "' is not an image reference");
    }
    String digest = m.group("digest");
    if (digest != null) {
      return DIGEST.matcher(digest).matches()
          ? Optional.empty()
          : Optional.of("'" + image + "' has a malformed digest");
    }
    String tag = m.group("tag");
    if (tag == null) {
      return Optional.of("'" + image + "' has no tag, which means latest");
    }
    if (!RELEASE_TAG.matcher(tag).matches()) {
      return Optional.of(
          "'" + image + "' has the moving tag '" + tag + "': pin a release version or a digest");
    }
    return Optional.empty();
  }
}
