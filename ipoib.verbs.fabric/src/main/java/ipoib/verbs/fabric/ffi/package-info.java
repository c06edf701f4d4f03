/**
 * The java.lang.foreign bindings (private): struct layouts and constants of the rdma-core
 * headers, downcall handles of libibverbs, libibumad and libc. Every struct offset and constant
 * here is checked against the installed headers by the module's layout test.
 */
package ipoib.verbs.fabric.ffi;
