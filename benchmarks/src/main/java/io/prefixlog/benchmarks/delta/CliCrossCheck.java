package io.prefixlog.benchmarks.delta;

import io.prefixlog.benchmarks.delta.Workload.Session;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Checks the in-process reference against the real CLI on a sample of turns: {@code zstd -3
 * --patch-from=prev -c target} (plain {@code zstd -3 -c target} for a first turn), output bytes
 * counted. The CLI writes a 4-byte checksum that the in-process frame leaves out.
 */
final class CliCrossCheck {
  static final int CLI_CHECKSUM_BYTES = 4;

  private CliCrossCheck() {}

  /**
   * @param sampled turns checked
   * @param inProcess their in-process reference sizes, summed
   * @param cli their CLI sizes, summed
   */
  record Result(int sampled, long inProcess, long cli) {
    double cliOverInProcessWithChecksum() {
      return (double) cli / (inProcess + (long) CLI_CHECKSUM_BYTES * sampled);
    }
  }

  /** The zstd binary: /usr/bin/zstd, else the first {@code zstd} on PATH. */
  static Optional<Path> findZstd() {
    List<Path> candidates = new ArrayList<>();
    candidates.add(Path.of("/usr/bin/zstd"));
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        if (!dir.isEmpty()) {
          candidates.add(Path.of(dir, "zstd"));
        }
      }
    }
    return candidates.stream().filter(Files::isExecutable).findFirst();
  }

  /** The CLI's version line, for the report. */
  static String version(Path zstd) {
    try {
      Process process = new ProcessBuilder(zstd.toString(), "--version").start();
      String line =
          new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      process.waitFor();
      return line;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + zstd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Runs up to {@code sampleSize} turns spread evenly over the workload. */
  static Result run(Workload workload, int sampleSize, Path zstd, Path tmp) {
    List<byte[][]> pairs = new ArrayList<>(); // {previous or null, body}
    for (Session session : workload.sessions()) {
      byte[] previous = null;
      for (byte[] body : session.bodies()) {
        pairs.add(new byte[][] {previous, body});
        previous = body;
      }
    }
    int n = Math.min(sampleSize, pairs.size());
    long inProcess = 0;
    long cli = 0;
    try (PatchFrom reference = new PatchFrom()) {
      Path prevFile = tmp.resolve("prev");
      Path targetFile = tmp.resolve("target");
      for (int k = 0; k < n; k++) {
        byte[][] pair = pairs.get((int) ((long) k * pairs.size() / n));
        inProcess += reference.size(pair[0], pair[1]);
        Files.write(targetFile, pair[1]);
        List<String> command = new ArrayList<>(List.of(zstd.toString(), "-3"));
        if (pair[0] != null) {
          Files.write(prevFile, pair[0]);
          command.add("--patch-from=" + prevFile);
        }
        command.add("-c");
        command.add(targetFile.toString());
        cli += outputBytes(command);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cross-check with " + zstd + " failed", e);
    }
    return new Result(n, inProcess, cli);
  }

  private static long outputBytes(List<String> command) throws IOException {
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    long bytes = 0;
    try (InputStream out = process.getInputStream()) {
      byte[] buffer = new byte[64 * 1024];
      for (int r; (r = out.read(buffer)) > 0; ) {
        bytes += r;
      }
    }
    try {
      int exit = process.waitFor();
      if (exit != 0) {
        throw new IOException(String.join(" ", command) + " exited with " + exit);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    return bytes;
  }
}
