package io.prefixlog.tools.pipeline;

import io.prefixlog.tools.cli.ProjectHome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The ingest bridge's real-peer publisher, {@code ingest-bridge/src/test/resources/kv_publisher.py}
 * (one script for both modules' tests), run with Debian's {@code /usr/bin/python3} and its
 * python3-zmq and python3-msgpack, driven line by line over stdin/stdout.
 */
final class PythonKvPublisher implements AutoCloseable {
  private static final Path PYTHON = Path.of("/usr/bin/python3");

  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  final String pubEndpoint;
  final String routerEndpoint;

  PythonKvPublisher(String... args) throws IOException, InterruptedException {
    Path script =
        ProjectHome.find()
            .orElseThrow(() -> new IllegalStateException("cannot find the project root"))
            .resolve("ingest-bridge/src/test/resources/kv_publisher.py");
    if (!Files.isExecutable(PYTHON) || !Files.exists(script)) {
      throw new IllegalStateException(
          PYTHON + " or " + script + " is missing: run scripts/install-test-deps.sh");
    }
    List<String> command = new ArrayList<>(List.of(PYTHON.toString(), "-u", script.toString()));
    command.addAll(List.of(args));
    this.process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                  lines.add(line);
                }
              } catch (IOException e) {
                lines.add("error " + e);
              }
              lines.add("eof");
            },
            "kv-publisher-stdout");
    reader.setDaemon(true);
    reader.start();
    String[] ready = next().split(" ");
    if (ready.length != 3 || !ready[0].equals("ready")) {
      throw new IllegalStateException("kv_publisher.py did not start: " + String.join(" ", ready));
    }
    this.pubEndpoint = ready[1];
    this.routerEndpoint = ready[2].equals("-") ? null : ready[2];
  }

  /** Sends one command; returns the lines it answered before its {@code ok}. */
  List<String> command(String command) {
    try {
      stdin.write(command + "\n");
      stdin.flush();
      List<String> answer = new ArrayList<>();
      for (String line = next(); !line.equals("ok"); line = next()) {
        if (line.equals("eof") || line.startsWith("error ")) {
          throw new IllegalStateException("kv_publisher.py ended during " + command + ": " + line);
        }
        answer.add(line);
      }
      return answer;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private String next() throws InterruptedException {
    String line = lines.poll(30, TimeUnit.SECONDS);
    if (line == null) {
      throw new IllegalStateException("kv_publisher.py did not answer within 30 s");
    }
    return line;
  }

  @Override
  public void close() {
    try {
      stdin.write("quit\n");
      stdin.flush();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException e) {
      process.destroyForcibly(); // its stdin is gone: so is it, or it soon will be
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
