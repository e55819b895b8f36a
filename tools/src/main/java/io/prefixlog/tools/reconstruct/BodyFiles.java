package io.prefixlog.tools.reconstruct;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes rebuilt bodies as {@code DIR/<session>/<seq>.body}. Session keys are hex in practice, but
 * any producer can write any key: every byte outside {@code [A-Za-z0-9._-]} is percent-encoded (and
 * a name of only dots too), so a key can never name a path outside {@code DIR}.
 */
final class BodyFiles {
  private final Path dir;

  BodyFiles(Path dir) throws IOException {
    this.dir = Files.createDirectories(dir);
  }

  Path write(String sessionKey, long seq, byte[] body) throws IOException {
    Path sessionDir = dir.resolve(safeName(sessionKey));
    Files.createDirectories(sessionDir);
    Path file = sessionDir.resolve(seq + ".body");
    Files.write(file, body);
    return file;
  }

  static String safeName(String sessionKey) {
    StringBuilder s = new StringBuilder();
    boolean onlyDots = true;
    for (byte b : sessionKey.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xFF);
      boolean safe =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '.'
              || c == '_'
              || c == '-';
      onlyDots &= c == '.';
      if (safe) {
        s.append(c);
      } else {
        s.append('%').append(String.format("%02X", b & 0xFF));
      }
    }
    return onlyDots ? s.toString().replace(".", "%2E") : s.toString();
  }
}
