package io.prefixlog.benchmarks.delta;

import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Corpora;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.chunk.Rechunker;
import io.prefixlog.core.delta.EncoderSettings;
import io.prefixlog.core.delta.TurnEncoder;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.tools.reconstruct.CaptureInput;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The re-chunking target: bodies rebuilt and re-hashed at ≥ 50 MB/s per size. The bundled corpora
 * are encoded as the stream app encodes them ({@link PrefixlogReplay}) into a value-only dump of
 * the deltas topic; each figure then reads that dump and rebuilds every body through {@link
 * CaptureInput} (what {@code analyze --chunk-sizes --deltas-file} runs) and hands each body to a
 * listener: nothing (the rebuild alone), one plain SHA-256 over the body (a hashing reference), or
 * {@link Rechunker} at one size, and at all sizes in one pass (what analyze does). MB/s are MB
 * (10^6 bytes) of rebuilt request bodies per second, the median of {@code --repeat} runs, one
 * thread.
 */
public final class RechunkBenchmark {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "RechunkBenchmark",
          "Rebuild + re-render + re-hash MB/s per chunk size (analyze --chunk-sizes), next to the"
              + " rebuild alone and a plain SHA-256 over the same bodies.",
          List.of(
              Corpora.OPTION,
              Option.value("sizes", "LIST", "64,256,1024", "Chunk sizes in bytes."),
              Option.value("repeat", "R", "5", "Runs per figure (median)."),
              Option.value("warmups", "N", "2", "Unmeasured runs first."),
              Option.value(
                  "keep-dump",
                  "FILE",
                  "none",
                  "Also copy the dump to FILE (an input for analyze --chunk-sizes --deltas-file).")));

  record Options(Path corpora, int[] sizes, int repeat, int warmups, Path keepDump) {
    static Options of(CommandLine line) throws UsageException {
      Path corpora = Corpora.of(line);
      int[] sizes;
      try {
        sizes =
            Arrays.stream(line.string("sizes", "64,256,1024").split(","))
                .map(String::strip)
                .mapToInt(Integer::parseInt)
                .toArray();
      } catch (NumberFormatException e) {
        throw new UsageException("--sizes: whole numbers, comma-separated");
      }
      return new Options(
          corpora,
          sizes,
          (int) line.longValue("repeat", 5, 1),
          (int) line.longValue("warmups", 2, 0),
          line.value("keep-dump").map(Path::of).orElse(null));
    }
  }

  /** Counts the rebuilt bytes and does the work under test with each body. */
  private static final class Sink implements RebuildListener {
    private final java.util.function.Consumer<byte[]> work;
    long bytes;
    long turns;

    Sink(java.util.function.Consumer<byte[]> work) {
      this.work = work;
    }

    @Override
    public void onVerifiedTurn(String sessionKey, long seq, DeltaRecord record, byte[] body) {
      bytes += body.length;
      turns++;
      work.accept(body);
    }
  }

  private final Options options;
  private final PrintStream out;
  private long sink;

  private RechunkBenchmark(Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Options::of, options -> new RechunkBenchmark(options, System.out).run());
  }

  private int run() throws Exception {
    out.println(BENCHMARK.title());
    Machine.header(out);
    out.println("measured: " + Machine.codeSource(Rechunker.class));
    Path dump = Files.createTempFile("rechunk-", ".jsonl");
    try {
      long records = writeDump(dump);
      if (options.keepDump() != null) {
        Files.copy(dump, options.keepDump(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
      out.printf(
          Locale.ROOT,
          "workload: %s, %,d delta records (%,d bytes of dump); %d warm-up and %d measured runs"
              + " per figure (median); one thread; started %s%n%n",
          options.corpora(),
          records,
          Files.size(dump),
          options.warmups(),
          options.repeat(),
          Instant.now());
      // On a shared machine the wall clock counts other processes' time too: the thread's CPU
      // time gives the rate one free core would reach.
      out.printf(
          Locale.ROOT,
          "%-52s %9s %8s %8s %8s %10s%n",
          "what",
          "MB bodies",
          "wall s",
          "MB/s",
          "CPU s",
          "MB/CPU-s");
      row(dump, "reference: rebuild alone", () -> body -> {});
      row(
          dump,
          "reference: rebuild + one SHA-256 per body",
          () -> body -> sink += Sha256.hex(body).length());
      for (int size : options.sizes()) {
        row(
            dump,
            "rebuild + render + hash, " + size + "-byte chunks",
            () -> {
              Rechunker r = new Rechunker(new int[] {size}, null);
              return body -> sink += r.rechunk(body).hashes(0).length;
            });
      }
      row(
          dump,
          "rebuild + render + hash, all " + options.sizes().length + " sizes in one pass",
          () -> {
            Rechunker r = new Rechunker(options.sizes(), null);
            return body -> sink += r.rechunk(body).hashes(0).length;
          });
      out.println();
      Machine.footer(out);
      out.println("(checksum " + sink + ")");
    } finally {
      Files.deleteIfExists(dump);
    }
    return 0;
  }

  private void row(Path dump, String what, Supplier<java.util.function.Consumer<byte[]>> work)
      throws Exception {
    List<Double> seconds = new ArrayList<>();
    List<Double> cpuSeconds = new ArrayList<>();
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long bytes = 0;
    for (int i = 0; i < options.warmups() + options.repeat(); i++) {
      Sink s = new Sink(work.get());
      Terminal quiet =
          Terminal.captured(OutputStream.nullOutputStream(), OutputStream.nullOutputStream());
      long start = System.nanoTime();
      long cpuStart = threads.getCurrentThreadCpuTime();
      CaptureInput.Rebuilt rebuilt = CaptureInput.dump(dump).rebuild(s, quiet, false);
      long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
      long elapsed = System.nanoTime() - start;
      if (rebuilt.report().counts().failures(true) > 0) {
        throw new IllegalStateException("a turn failed to rebuild: " + rebuilt.description());
      }
      bytes = s.bytes;
      if (i >= options.warmups()) {
        seconds.add(elapsed / 1e9);
        cpuSeconds.add(cpu / 1e9);
      }
    }
    double median = Medians.of(seconds);
    double cpu = Medians.of(cpuSeconds);
    out.printf(
        Locale.ROOT,
        "%-52s %9.1f %8.3f %8.1f %8.3f %10.1f%n",
        what,
        bytes / 1e6,
        median,
        bytes / 1e6 / median,
        cpu,
        bytes / 1e6 / cpu);
    out.flush();
  }

  /** The corpora's sessions as the stream app's delta records, one JSON value per line. */
  private long writeDump(Path file) throws IOException {
    TurnEncoder encoder = new TurnEncoder(EncoderSettings.DEFAULTS);
    long startMs = Instant.parse("2026-11-21T10:00:00Z").toEpochMilli();
    long records = 0;
    try (OutputStream stream = new java.io.BufferedOutputStream(Files.newOutputStream(file))) {
      for (Workload workload :
          Workloads.load(options.corpora(), "prefixlog-demo", Integer.MAX_VALUE)) {
        PrefixlogReplay replay = new PrefixlogReplay(encoder::encode, "prefixlog-demo");
        for (List<PrefixlogReplay.Turn> session : replay.run(workload, startMs)) {
          for (PrefixlogReplay.Turn turn : session) {
            stream.write(turn.json());
            stream.write('\n');
            records++;
          }
        }
      }
    }
    return records;
  }
}
