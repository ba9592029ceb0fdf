package io.github.esrel.spring.integration;

import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.EsrelTest;

/** The registry's cases on {@code TreeLocks.Backend.PLUGIN}. */
@EsrelTest
class PluginLockRegistryIT extends AbstractLockRegistryIT {

    @Override
    TreeLocks.Backend backend() {
        return TreeLocks.Backend.PLUGIN;
    }
}
