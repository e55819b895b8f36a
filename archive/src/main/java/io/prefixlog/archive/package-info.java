/** Reading the archive: the Iceberg tables the sink connector writes, back into delta records. */
package io.prefixlog.archive;
