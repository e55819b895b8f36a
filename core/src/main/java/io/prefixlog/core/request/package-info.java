/**
 * Validation of raw request events: every way a raw event can be bad, each with its reason code.
 */
package io.prefixlog.core.request;
