package io.prefixlog.bridge.kv;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The real peer: {@code kv_publisher.py} (test resources) run with Debian's {@code
 * /usr/bin/python3} and its python3-zmq and python3-msgpack, driven line by line over stdin/stdout.
 * Public because tools' KvPipelineIT drives it too, through this module's test-jar.
 */
public final class PythonPublisher implements AutoCloseable {
  static final Path PYTHON = Path.of("/usr/bin/python3");

  private final Process process;
  private final Path script;
  private final Writer stdin;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  /** The ZMQ PUB endpoint the events are published on. */
  public final String pubEndpoint;

  /** The ZMQ ROUTER endpoint that replays, or {@code null} when the publisher runs without one. */
  public final String routerEndpoint;

  private PythonPublisher(Process process, Path script) throws IOException, InterruptedException {
    this.process = process;
    this.script = script;
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
    String ready = next();
    String[] words = ready.split(" ");
    if (words.length != 3 || !words[0].equals("ready")) {
      throw new IllegalStateException("kv_publisher.py did not start: " + ready);
    }
    this.pubEndpoint = words[1];
    this.routerEndpoint = words[2].equals("-") ? null : words[2];
  }

  /** Starts the publisher; its stderr goes to this JVM's stderr. */
  public static PythonPublisher start(String... args) throws IOException, InterruptedException {
    if (!Files.isExecutable(PYTHON)) {
      throw new IllegalStateException(
          PYTHON + " is missing: run scripts/install-test-deps.sh (python3-zmq, python3-msgpack)");
    }
    Path script = script();
    List<String> command = new ArrayList<>();
    command.add(PYTHON.toString());
    command.add("-u");
    command.add(script.toString());
    command.addAll(List.of(args));
    try {
      Process process =
          new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      return new PythonPublisher(process, script);
    } catch (IOException | InterruptedException | RuntimeException e) {
      Files.deleteIfExists(script);
      throw e;
    }
  }

  /**
   * The script copied from the classpath to a temporary file: from another module it is inside this
   * module's test-jar, where python cannot read it.
   */
  private static Path script() throws IOException {
    Path script = Files.createTempFile("kv_publisher", ".py");
    try (InputStream in =
        Objects.requireNonNull(
            PythonPublisher.class.getResourceAsStream("/kv_publisher.py"), "kv_publisher.py")) {
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    return script;
  }

  /** Sends one command and returns the lines it answered before its {@code ok}. */
  public List<String> command(String command) {
    try {
      stdin.write(command + "\n");
      stdin.flush();
      List<String> answer = new ArrayList<>();
      for (String line = next(); !line.equals("ok"); line = next()) {
        if (line.equals("eof") || line.startsWith("error ")) {
          throw new IllegalStateException(
              "kv_publisher.py ended during '" + command + "': " + line);
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
    try {
      Files.deleteIfExists(script);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
