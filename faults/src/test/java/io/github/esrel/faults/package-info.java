/**
 * The fault suite: esrel's guarantees on real 3-node clusters through node kills, frozen nodes and client
 * processes, rolling restarts and index blocks. Every class is a {@code *FaultIT}; run with {@code -Pfaults}.
 */
package io.github.esrel.faults;
