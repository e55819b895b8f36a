package io.prefixlog.tools.analyze;

import io.prefixlog.cli.LineSplitter;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.ProgressInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Reads lookup files line by line into a {@link Trace}: prefixlog's JSONL dumps of the lookups
 * topic and LMCache's lookup-hash logs unchanged ({@link LookupParser} tells them apart). A file
 * ending in {@code .gz} is read through gzip. A bad line is reported as {@code file:line} and
 * counted, and reading goes on.
 */
final class LookupFiles {
  /**
   * The names a directory is read for; LMCache's {@code lookup_hashes_*} and {@code chunk_hashes_*}
   * logs are among them.
   */
  static final String DIRECTORY_GLOB = "*.{jsonl,jsonl.gz}";

  private static final int CHUNK = 1 << 16;

  private LookupFiles() {}

  /** Receives each line of the input, without its terminator ({@code \n} or {@code \r\n}). */
  @FunctionalInterface
  interface LineHandler {
    /**
     * @param location {@code file:line}, for a problem's message
     */
    void line(byte[] line, int length, String location) throws IOException;
  }

  /**
   * The files named by the arguments, in order: a file as it is, a directory as its {@code *.jsonl}
   * (and {@code *.jsonl.gz}) files sorted by name.
   *
   * @throws NoSuchFileException when an argument does not exist or a directory holds no such file
   */
  static List<Path> expand(List<String> paths) throws IOException {
    List<Path> files = new ArrayList<>();
    for (String name : paths) {
      Path path = Path.of(name);
      if (Files.isDirectory(path)) {
        List<Path> inside = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(path, DIRECTORY_GLOB)) {
          for (Path file : dir) {
            if (Files.isRegularFile(file)) {
              inside.add(file);
            }
          }
        }
        if (inside.isEmpty()) {
          throw new NoSuchFileException(
              name, null, "directory holds no *.jsonl file (lookup_hashes_*.jsonl, a dump)");
        }
        inside.sort(null);
        files.addAll(inside);
      } else if (Files.isRegularFile(path)) {
        files.add(path);
      } else {
        throw new NoSuchFileException(name, null, "no such file or directory");
      }
    }
    return files;
  }

  /** Reads every file into the trace, advancing the progress bar by bytes read. */
  static void read(List<Path> files, Trace trace, Progress progress) throws IOException {
    read(files, (line, length, location) -> onLine(line, length, location, trace), progress);
  }

  /** Reads every file's lines in order, advancing the progress bar by bytes read. */
  static void read(List<Path> files, LineHandler handler, Progress progress) throws IOException {
    long total = 0;
    for (Path file : files) {
      total += Files.size(file);
    }
    progress.total(total);
    long done = 0;
    for (Path file : files) {
      try (InputStream in = Files.newInputStream(file)) {
        ProgressInputStream counted = new ProgressInputStream(in, progress, done);
        InputStream lines =
            file.getFileName().toString().endsWith(".gz")
                ? new GZIPInputStream(counted, CHUNK)
                : counted;
        read(lines, file.toString(), handler);
        done = counted.position();
      }
    }
  }

  /** Reads one stream of lines; {@code name} is the location prefix of its problems. */
  static void read(InputStream in, String name, Trace trace) throws IOException {
    read(in, name, (line, length, location) -> onLine(line, length, location, trace));
  }

  private static void read(InputStream in, String name, LineHandler handler) throws IOException {
    LineSplitter.split(
        in, (line, length, number, offset) -> handler.line(line, length, name + ":" + number));
  }

  private static void onLine(byte[] line, int length, String location, Trace trace) {
    try {
      // A kcat -J envelope has its record key: compacted by key, as the topic is.
      trace.accept(LookupParser.parse(line, length));
    } catch (LookupParser.BadLineException e) {
      trace.bad(location, e.getMessage());
    }
  }
}
