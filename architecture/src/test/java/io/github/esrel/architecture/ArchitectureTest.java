package io.github.esrel.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The structure esrel's code already has, as rules that fail the build. They read the compiled main classes of every
 * module of the repository and its per-line source folders; a new module (an adapter, say) is found and held to them
 * without a change here.
 *
 * <ul>
 *   <li>No cycles between packages, in any module.</li>
 *   <li>The internal packages ({@code io.github.esrel.internal} and below, and an {@code internal} package of a
 *       capability, such as {@code io.github.esrel.doc.internal}) are used only inside the client ({@code esrel-client},
 *       {@code esrel-client-es8}) and the benchmarks, which measure them.</li>
 *   <li>The adapters (every library the BOMs publish besides the client and testenv: ShedLock, Spring Integration,
 *       the Boot starters, Micrometer, and whatever joins them) use esrel only through the client's public packages
 *       and each other.</li>
 *   <li>The plugin and the client never import each other.</li>
 *   <li>In the plugin's tree locks, the table store (esrel 0.1's one-document store) is a leaf that only the store
 *       choice uses, and the group commit knows nothing about locks.</li>
 *   <li>Per-line folders are reached only through their seam: every line of a seam declares the same classes (so
 *       shared code can only name what every line has), and no other module reaches into a module's line classes.
 *       That shared code uses only what every line's library has is proved by compiling it on every line.</li>
 *   <li>Every package of every published module (the BOMs' libraries and the plugin) is {@code @NullMarked} in its
 *       {@code package-info}.</li>
 * </ul>
 */
class ArchitectureTest {

    private static final String ESREL = "io.github.esrel";
    /** The packages that are no API: {@code io.github.esrel.internal}, an {@code internal} package of a capability. */
    private static final String INTERNAL = ESREL + "..internal..";

    private static final Set<String> CLIENT = Set.of("esrel-client", "esrel-client-es8");
    private static final String PLUGIN = "esrel-plugin";
    private static final String TESTENV = "esrel-testenv";
    private static final String LOCKS = ESREL + ".plugin.lock";
    private static final String TABLE_STORE = LOCKS + ".table";
    private static final String STORE_CHOICE = LOCKS + ".TreeLockService";
    private static final String GROUP_COMMIT = LOCKS + ".commit";
    private static final String NULL_MARKED = "org.jspecify.annotations.NullMarked";

    private static Tree tree;
    private static Map<String, Tree.Module> modules;
    private static Map<String, JavaClasses> classes;
    private static List<Tree.LineFolder> lineFolders;

    @BeforeAll
    static void read() {
        tree = Tree.fromBuild();
        modules = tree.modules();
        lineFolders = tree.lineFolders();
        classes = new HashMap<>();
        for (Tree.Module m : modules.values()) {
            if (Files.isDirectory(m.classes())) {
                classes.put(m.artifactId(), new ClassFileImporter().importPath(m.classes()));
            }
        }
    }

    /** Every module with main code is compiled before the rules run: a rule on nothing would prove nothing. */
    @Test
    void shouldFindEveryModuleCompiled() {
        assertThat(modules).containsKeys("esrel-client", "esrel-client-es8", PLUGIN, "esrel-shedlock");
        List<String> missing = modules.values().stream()
                .filter(m -> !classes.containsKey(m.artifactId())
                        || classes.get(m.artifactId()).isEmpty())
                .map(m -> m.artifactId() + " (" + tree.root.relativize(m.classes()) + ")")
                .toList();
        assertThat(missing)
                .as("modules without compiled classes: build them first; a new module goes into the dependencies of"
                        + " architecture/pom.xml, so that the reactor builds it before these tests")
                .isEmpty();
    }

    @TestFactory
    List<DynamicTest> shouldHaveNoCyclesBetweenPackages() {
        return perModule(m -> slices().matching(ESREL + ".(**)").should().beFreeOfCycles());
    }

    @TestFactory
    List<DynamicTest> shouldUseInternalOnlyInsideTheClient() {
        return perModule(
                // The benchmarks (never published) measure what an internal part costs, such as esrel's transport.
                m -> !CLIENT.contains(m) && !m.equals("esrel-benchmarks"),
                m -> noClasses()
                        .should()
                        .dependOnClassesThat()
                        .resideInAPackage(INTERNAL)
                        .because("an internal package is not API: only the client's own packages share it"));
    }

    @TestFactory
    List<DynamicTest> shouldBuildAdaptersOnTheClientsPublicApiOnly() {
        Set<String> adapters = adapters();
        assertThat(adapters)
                .contains("esrel-shedlock", "esrel-spring-integration", "esrel-spring-boot", "esrel-micrometer");
        Set<String> allowed = new TreeSet<>(packagesOf(CLIENT));
        allowed.removeIf(p -> List.of(p.split("\\.")).contains("internal"));
        allowed.addAll(packagesOf(adapters));
        return perModule(
                adapters::contains,
                m -> classes()
                        .should()
                        .onlyDependOnClassesThat(describe(
                                "outside esrel, or in the client's public packages or an adapter's: " + allowed,
                                c -> !inEsrel(c) || allowed.contains(c.getPackageName()))));
    }

    @Test
    void shouldKeepThePluginAndTheClientApart() {
        Set<String> clientPackages = packagesOf(CLIENT);
        Set<String> pluginPackages = packagesOf(Set.of(PLUGIN));
        ArchRule plugin = noClasses()
                .should()
                .dependOnClassesThat(
                        describe("in the client's packages", c -> clientPackages.contains(c.getPackageName())));
        ArchRule client = noClasses()
                .should()
                .dependOnClassesThat(describe(
                        "in the plugin's packages",
                        c -> pluginPackages.contains(c.getPackageName())
                                || c.getPackageName().startsWith(ESREL + ".plugin")));
        plugin.check(classes.get(PLUGIN));
        CLIENT.forEach(m -> client.check(classes.get(m)));
        assertThat(clientPackages).doesNotContainAnyElementsOf(pluginPackages);
    }

    /**
     * The table store is the lock kernel's leaf: the store choice picks it, and nothing else knows it. The grant store
     * takes a one-document table over through the kernel's own reader of that document, so the upgrade needs none of
     * it either.
     */
    @Test
    void shouldLetOnlyTheStoreChoiceUseTheTableStore() {
        noClasses()
                .that()
                .resideOutsideOfPackage(TABLE_STORE)
                .and()
                .doNotHaveFullyQualifiedName(STORE_CHOICE)
                .should()
                .dependOnClassesThat()
                .resideInAPackage(TABLE_STORE)
                .because("the one-document table store of esrel 0.1 is a leaf: only the store choice (" + STORE_CHOICE
                        + ") picks it")
                .check(pluginWith(TABLE_STORE));
    }

    /** The group commit is an engine over any compare-and-set store: it names nothing of the locks it serves. */
    @Test
    void shouldKeepTheGroupCommitFreeOfLocks() {
        noClasses()
                .that()
                .resideInAPackage(GROUP_COMMIT)
                .should()
                .dependOnClassesThat(describe(
                        "in the plugin's other packages",
                        c -> c.getPackageName().startsWith(ESREL + ".plugin")
                                && !c.getPackageName().equals(GROUP_COMMIT)))
                .check(pluginWith(GROUP_COMMIT));
    }

    /** Each per-line folder has a twin declaring the same classes: one seam, every line implementing all of it. */
    @Test
    void shouldDeclareTheSameSeamInEveryLine() {
        assertThat(lineFolders).extracting(f -> f.dir().toString()).contains("client-toolkit/src/main/client-es9");
        List<String> alone = new ArrayList<>();
        for (Tree.LineFolder folder : lineFolders) {
            boolean twin = lineFolders.stream()
                    .anyMatch(o -> o != folder
                            && o.dir().getParent().equals(folder.dir().getParent())
                            && o.classes().equals(folder.classes()));
            if (!twin) {
                alone.add(folder.dir() + " " + folder.classes());
            }
        }
        assertThat(alone)
                .as("per-line folders whose classes no other line of the same seam declares")
                .isEmpty();
    }

    /** A module's line classes are its own: another module reaches that line only through the module's API. */
    @TestFactory
    List<DynamicTest> shouldReachNoOtherModulesLineClasses() {
        return perModule(m -> {
            Set<String> own = new TreeSet<>();
            classes.get(m).forEach(c -> own.add(topLevel(c)));
            Set<String> others = lineFolders.stream()
                    .flatMap(f -> f.classes().stream())
                    .filter(c -> !own.contains(c))
                    .collect(Collectors.toSet());
            return noClasses()
                    .should()
                    .dependOnClassesThat(
                            describe("in another module's per-line folders", c -> others.contains(topLevel(c))));
        });
    }

    /**
     * JSpecify's {@code @NullMarked} on every package of every published module: its types are non-null unless marked
     * {@code @Nullable}, which Kotlin and IDEs read and NullAway checks when main code compiles. A new package cannot
     * forget it.
     */
    @TestFactory
    List<DynamicTest> shouldNullMarkEveryPackageOfEveryPublishedModule() {
        Set<String> published = new TreeSet<>(tree.bomArtifacts());
        published.add(PLUGIN);
        published.retainAll(classes.keySet()); // starters are dependency-only: no classes of their own
        assertThat(published)
                .contains(
                        "esrel-client", "esrel-client-es8", PLUGIN, TESTENV, "esrel-spring-boot", "esrel-spring-boot3");
        List<DynamicTest> tests = new ArrayList<>();
        for (String m : published) {
            tests.add(DynamicTest.dynamicTest(m, () -> {
                JavaClasses own = classes.get(m);
                Set<String> unmarked = new TreeSet<>();
                own.forEach(c -> {
                    String info = c.getPackageName() + ".package-info";
                    if (!own.contain(info) || !own.get(info).isAnnotatedWith(NULL_MARKED)) {
                        unmarked.add(c.getPackageName());
                    }
                });
                assertThat(unmarked)
                        .as(
                                "packages of %s without a package-info.java annotated @%s (and a sentence on what the"
                                        + " package is for)",
                                m, NULL_MARKED)
                        .isEmpty();
            }));
        }
        return tests;
    }

    // ---- helpers --------------------------------------------------------------------------------------------

    /** The plugin's classes, which must have some in {@code pkg}: a rule about a package that is gone proves nothing. */
    private static JavaClasses pluginWith(String pkg) {
        JavaClasses plugin = classes.get(PLUGIN);
        assertThat(plugin.stream().filter(c -> c.getPackageName().equals(pkg)))
                .as("classes of %s", pkg)
                .isNotEmpty();
        return plugin;
    }

    /** The libraries the BOMs publish besides the client and testenv, found as modules. */
    private static Set<String> adapters() {
        Set<String> adapters = new TreeSet<>(tree.bomArtifacts());
        adapters.removeAll(CLIENT);
        adapters.remove(TESTENV);
        adapters.retainAll(modules.keySet()); // starters are dependency-only: no classes of their own
        return adapters;
    }

    private static Set<String> packagesOf(Set<String> artifactIds) {
        Set<String> packages = new TreeSet<>();
        for (String a : artifactIds) {
            classes.get(a).forEach(c -> packages.add(c.getPackageName()));
        }
        return packages;
    }

    private static boolean inEsrel(JavaClass c) {
        return c.getPackageName().equals(ESREL) || c.getPackageName().startsWith(ESREL + ".");
    }

    private static String topLevel(JavaClass c) {
        String name = c.getName();
        int dollar = name.indexOf('$');
        return dollar < 0 ? name : name.substring(0, dollar);
    }

    private static List<DynamicTest> perModule(java.util.function.Function<String, ArchRule> rule) {
        return perModule(m -> true, rule);
    }

    private static List<DynamicTest> perModule(
            java.util.function.Predicate<String> which, java.util.function.Function<String, ArchRule> rule) {
        List<DynamicTest> tests = new ArrayList<>();
        for (String m : new TreeSet<>(classes.keySet())) {
            if (which.test(m)) {
                tests.add(DynamicTest.dynamicTest(m, () -> rule.apply(m).check(classes.get(m))));
            }
        }
        assertThat(tests).as("modules the rule applies to").isNotEmpty();
        return tests;
    }
}
