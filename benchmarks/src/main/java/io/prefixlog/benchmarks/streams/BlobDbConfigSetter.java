package io.prefixlog.benchmarks.streams;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.CompressionType;
import org.rocksdb.Options;

/**
 * Large-value RocksDB settings for the stream app's stores, set through {@code
 * rocksdb.config.setter}: integrated BlobDB (values of 4 KiB or more go to 256 MiB blob files that
 * compaction does not rewrite, with garbage collection at an age cutoff of 0.25), LZ4 for blobs and
 * for SST blocks. Small values (the session state) stay in the LSM.
 *
 * <p>Public with a no-argument constructor: Kafka Streams instantiates it by class name.
 */
public final class BlobDbConfigSetter implements RocksDBConfigSetter {
  static final long MIN_BLOB_BYTES = 4 * 1024;
  static final long BLOB_FILE_BYTES = 256L * 1024 * 1024;
  static final double GC_AGE_CUTOFF = 0.25;

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    apply(options);
  }

  /** The same settings on any options, for the in-process store timing. */
  static void apply(Options options) {
    options.setEnableBlobFiles(true);
    options.setMinBlobSize(MIN_BLOB_BYTES);
    options.setBlobFileSize(BLOB_FILE_BYTES);
    options.setBlobCompressionType(CompressionType.LZ4_COMPRESSION);
    options.setEnableBlobGarbageCollection(true);
    options.setBlobGarbageCollectionAgeCutoff(GC_AGE_CUTOFF);
    options.setCompressionType(CompressionType.LZ4_COMPRESSION);
  }

  @Override
  public void close(String storeName, Options options) {
    // Nothing allocated here: every setting is a plain value on the options.
  }
}
