package io.github.esrel.testenv;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.elasticsearch.client.RestClient;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.ModifierSupport;

/**
 * Starts the {@link Cluster @Cluster} fields of a test class and closes them when their scope ends:
 * static fields around the class, instance fields around each test method. Clusters are kept in the
 * JUnit store, which closes them even when tests or other callbacks fail.
 *
 * <p>Also resolves parameters of type {@link EsCluster}, {@link ElasticsearchClient} and {@link
 * RestClient} (in test, lifecycle and constructor methods) from the class's only {@code @Cluster}
 * field.
 *
 * <p>Usually applied through {@link EsrelTest @EsrelTest}.
 */
public final class EsClusterExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(EsClusterExtension.class);

    /** Creates the extension; JUnit does this. */
    public EsClusterExtension() {}

    @Override
    public void beforeAll(ExtensionContext context) {
        for (Field field : clusterFields(context.getRequiredTestClass(), ModifierSupport::isStatic)) {
            start(context, field, null);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        Object instance = context.getRequiredTestInstance();
        for (Field field : clusterFields(instance.getClass(), ModifierSupport::isNotStatic)) {
            start(context, field, instance);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == EsCluster.class || type == ElasticsearchClient.class || type == RestClient.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> testClass = context.getRequiredTestClass();
        List<Field> fields = new ArrayList<>(clusterFields(testClass, f -> true));
        // A @Nested class uses the clusters of the classes around it.
        for (Class<?> outer = testClass.getEnclosingClass(); outer != null; outer = outer.getEnclosingClass()) {
            fields.addAll(clusterFields(outer, ModifierSupport::isStatic));
        }
        if (fields.size() != 1) {
            throw new ParameterResolutionException(testClass.getName()
                    + " has "
                    + fields.size()
                    + " @Cluster fields, so the "
                    + parameter.getParameter().getType().getSimpleName()
                    + " parameter of "
                    + parameter.getDeclaringExecutable().getName()
                    + " is ambiguous or has no source;"
                    + " declare exactly one @Cluster field, or use the fields directly");
        }
        Field field = fields.get(0);
        Optional<Object> instance = context.getTestInstance();
        if (!ModifierSupport.isStatic(field) && instance.isEmpty()) {
            throw new ParameterResolutionException("@Cluster field "
                    + field.getName()
                    + " is per test method; it cannot be injected into "
                    + parameter.getDeclaringExecutable().getName()
                    + ": make the field static");
        }
        EsCluster cluster = read(field, instance.orElse(null));
        // Normally started already by beforeAll/beforeEach; not so for the constructor of a
        // PER_CLASS test instance, which JUnit creates before beforeAll. Idempotent.
        cluster.start();
        Class<?> type = parameter.getParameter().getType();
        if (type == ElasticsearchClient.class) {
            return cluster.client();
        }
        return type == RestClient.class ? cluster.restClient() : cluster;
    }

    private static void start(ExtensionContext context, Field field, @Nullable Object instance) {
        EsCluster cluster = read(field, instance);
        if (cluster.shared()) {
            // Closed when the whole test run ends, after every class that may share the cluster.
            context.getRoot()
                    .getStore(NAMESPACE)
                    .getOrComputeIfAbsent(
                            SharedClusters.class, k -> new Closing(SharedClusters::closeAll), Closing.class);
        }
        // Stored before start: a cluster that fails halfway is closed by JUnit too.
        context.getStore(NAMESPACE).put(field, new Closing(cluster));
        cluster.start();
    }

    private static List<Field> clusterFields(Class<?> testClass, Predicate<Field> filter) {
        return AnnotationSupport.findAnnotatedFields(testClass, Cluster.class, filter);
    }

    private static EsCluster read(Field field, @Nullable Object instance) {
        String name = field.getDeclaringClass().getSimpleName() + "." + field.getName();
        if (!EsCluster.class.isAssignableFrom(field.getType())) {
            throw new ExtensionConfigurationException("@Cluster field "
                    + name
                    + " must be of type EsCluster, not "
                    + field.getType().getName());
        }
        Object value;
        try {
            field.setAccessible(true);
            value = field.get(instance);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ExtensionConfigurationException("cannot read @Cluster field " + name, e);
        }
        if (value == null) {
            throw new ExtensionConfigurationException(
                    "@Cluster field " + name + " is null; initialise it with EsCluster.builder().build()");
        }
        return (EsCluster) value;
    }

    /**
     * What JUnit closes when the store it is in closes, on every JUnit 5 the extension runs on: before 5.13 (Spring
     * Boot 3.5 manages 5.12) JUnit closes only {@code CloseableResource} values, from 5.13 on {@code AutoCloseable}
     * ones as well. Either closes it once; closing a cluster twice is harmless anyway.
     */
    // deprecation: CloseableResource is the only kind of value JUnit 5.12 closes; try: JUnit closes it, not a try block
    @SuppressWarnings({"deprecation", "try"})
    private record Closing(AutoCloseable value) implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        @Override
        public void close() throws Exception {
            value.close();
        }
    }
}
