package io.prefixlog.embedded.postgres;

import io.prefixlog.embedded.Ports;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of Debian's server binaries in a temporary directory, on loopback and a free
 * port, trusting every local connection: the docker-compose catalog's database without Docker.
 * PostgreSQL refuses to run as root, so as root every command runs as the {@code postgres} user
 * through {@code runuser}. Stopped with {@code pg_ctl stop -m immediate}. Tests use it (deploy's
 * catalog-init check, the archive's erasure with the compose catalog); {@code
 * scripts/install-test-deps.sh} installs the binaries.
 */
public final class ThrowawayPostgres implements AutoCloseable {
  private static final Path INSTALL = Path.of("/usr/lib/postgresql");

  private final Path bin;
  private final Path dir;
  private final int port;

  private ThrowawayPostgres(Path bin, Path dir, int port) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
  }

  /** The newest installed server's bin directory, if any. */
  public static Optional<Path> binaries() {
    if (!Files.isDirectory(INSTALL)) {
      return Optional.empty();
    }
    try (Stream<Path> versions = Files.list(INSTALL)) {
      return versions
          .map(v -> v.resolve("bin"))
          .filter(b -> Files.isExecutable(b.resolve("initdb")))
          .max(Comparator.comparing(b -> b.getParent().getFileName().toString()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** initdb, start, and create {@code database} owned by {@code user}. */
  public static ThrowawayPostgres start(Path bin, Path dir, String user, String database)
      throws IOException, InterruptedException {
    // The server user must reach and own the cluster directory.
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path data = dir.resolve("data");
    int port = Ports.free("127.0.0.1");
    ThrowawayPostgres postgres = new ThrowawayPostgres(bin, dir, port);
    postgres.run(
        "initdb", "-D", data.toString(), "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync");
    postgres.run(
        "pg_ctl",
        "-D",
        data.toString(),
        "-l",
        dir.resolve("postgres.log").toString(),
        "-o",
        "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off",
        "-w",
        "start");
    try {
      postgres.run(
          "createdb", "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", user, database);
    } catch (IOException | RuntimeException e) {
      postgres.close();
      throw e;
    }
    return postgres;
  }

  public int port() {
    return port;
  }

  /** One value: the first column of the first row of {@code sql}, through psql. */
  public String queryValue(String user, String database, String sql)
      throws IOException, InterruptedException {
    run(
        "psql",
        "-h",
        "127.0.0.1",
        "-p",
        Integer.toString(port),
        "-U",
        user,
        "-d",
        database,
        "-At",
        "-c",
        sql);
    return Files.readString(dir.resolve("psql.out"), StandardCharsets.UTF_8).strip();
  }

  @Override
  public void close() {
    try {
      run("pg_ctl", "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "stop");
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot stop PostgreSQL in " + dir, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run(String tool, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.add(bin.resolve(tool).toString());
    command.addAll(List.of(args));
    Path log = dir.resolve(tool + ".out");
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(tool + " did not finish in 60 s");
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          tool
              + " exited "
              + process.exitValue()
              + ": "
              + Files.readString(log, StandardCharsets.UTF_8));
    }
  }
}
