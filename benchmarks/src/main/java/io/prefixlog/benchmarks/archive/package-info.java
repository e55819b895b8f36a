/** What the archive costs in the bucket, next to the request bytes and the delta topic. */
package io.prefixlog.benchmarks.archive;
