package ipoib.verbs.fabric.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles a C program against the installed {@code <infiniband/verbs.h>},
 * {@code <infiniband/umad.h>}, {@code <poll.h>}, {@code <sys/eventfd.h>} and {@code <errno.h>}
 * that prints {@code offsetof}/{@code sizeof} of every named member of every Java layout, the
 * size of every struct and the value of every constant, and compares each with the Java side.
 * The program is generated from the layouts, so a member the binding touches cannot escape the
 * check.
 */
class LayoutTest {
    @TempDir
    static Path dir;
    private static final Map<String, Long> C = new LinkedHashMap<>();
    private static final List<String> CHECKS = new ArrayList<>();

    @BeforeAll
    static void compileAndRun() throws Exception {
        StringBuilder src = new StringBuilder("""
                #include <stddef.h>
                #include <stdio.h>
                #include <errno.h>
                #include <poll.h>
                #include <sys/eventfd.h>
                #include <infiniband/verbs.h>
                #include <infiniband/umad.h>
                int main(void) {
                """);
        for (Map.Entry<String, StructLayout> e : Structs.complete().entrySet()) {
            String type = e.getKey();
            src.append(String.format("  printf(\"SIZE %s %%zu\\n\", sizeof(%s));%n", type.replace(' ', '_'), type));
            CHECKS.add("SIZE " + type);
            members(src, type, e.getValue(), "");
        }
        for (String name : Consts.all().keySet()) {
            src.append(String.format("  printf(\"CONST %s %%lld\\n\", (long long) (%s));%n", name, name));
        }
        for (String name : Native.ERRNO_NAMES.values()) {
            src.append(String.format("  printf(\"CONST %s %%lld\\n\", (long long) (%s));%n", name, name));
        }
        src.append("  return 0;\n}\n");
        Path c = dir.resolve("layouts.c");
        Files.writeString(c, src);
        Path exe = dir.resolve("layouts");
        run(List.of("gcc", "-Wall", "-o", exe.toString(), c.toString()),
                "gcc must be installed with libibverbs-dev and libibumad-dev (CI's .ci/run installs them)");
        for (String line : run(List.of(exe.toString()), "the layout program failed").split("\n")) {
            String[] f = line.trim().split(" ");
            if (f[0].equals("OFF")) {
                C.put("OFF " + f[1], Long.parseLong(f[2]));
                C.put("MSIZE " + f[1], Long.parseLong(f[3]));
            } else if (f.length == 3) {
                C.put(f[0] + " " + f[1], Long.parseLong(f[2]));
            }
        }
    }

    /** Emits checks of every named member (recursively into nested structs and unions). */
    private static void members(StringBuilder src, String type, GroupLayout group, String prefix) {
        for (MemoryLayout m : group.memberLayouts()) {
            if (m.name().isEmpty() || m.name().get().startsWith("$")) {
                continue;
            }
            String path = prefix + m.name().get();
            src.append(String.format("  printf(\"OFF %s|%s %%zu %%zu\\n\", offsetof(%s, %s), sizeof(((%s *) 0)->%s));%n",
                    type.replace(' ', '_'), path, type, path, type, path));
            CHECKS.add(type + "|" + path);
            if (m instanceof GroupLayout nested) {
                members(src, type, nested, path + ".");
            }
        }
    }

    private static String run(List<String> command, String hint) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            fail(command.get(0) + " cannot be started: " + e.getMessage() + "; " + hint);
            throw e;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(command + " did not finish");
        }
        if (p.exitValue() != 0) {
            fail(command + " failed (" + hint + "):\n" + out);
        }
        return out;
    }

    @Test
    void everyStructHasTheSizeOfTheHeaders() {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, StructLayout> e : Structs.complete().entrySet()) {
            Long c = C.get("SIZE " + e.getKey().replace(' ', '_'));
            if (c == null || c != e.getValue().byteSize()) {
                wrong.add(e.getKey() + ": C " + c + ", Java " + e.getValue().byteSize());
            }
        }
        assertTrue(wrong.isEmpty(), "struct sizes differ: " + wrong);
    }

    @Test
    void everyMemberHasTheOffsetAndSizeOfTheHeaders() {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<String, StructLayout> e : Structs.complete().entrySet()) {
            checked += compare(e.getKey(), e.getValue(), e.getValue(), "", wrong);
        }
        assertTrue(wrong.isEmpty(), "members differ from the headers:\n" + String.join("\n", wrong));
        assertTrue(checked > 200, "only " + checked + " members checked");
    }

    private static int compare(String type, StructLayout root, GroupLayout group, String prefix, List<String> wrong) {
        int n = 0;
        for (MemoryLayout m : group.memberLayouts()) {
            if (m.name().isEmpty() || m.name().get().startsWith("$")) {
                continue;
            }
            String path = prefix + m.name().get();
            String key = type.replace(' ', '_') + "|" + path;
            long javaOffset = Structs.offset(root, path);
            Long cOffset = C.get("OFF " + key);
            Long cSize = C.get("MSIZE " + key);
            if (cOffset == null || cOffset != javaOffset || cSize == null || cSize != m.byteSize()) {
                wrong.add(type + "." + path + ": C offset " + cOffset + " size " + cSize + ", Java offset "
                        + javaOffset + " size " + m.byteSize());
            }
            n++;
            if (m instanceof GroupLayout nested) {
                n += compare(type, root, nested, path + ".", wrong);
            }
        }
        return n;
    }

    @Test
    void everyConstantHasTheValueOfTheHeaders() {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Long> e : Consts.all().entrySet()) {
            Long c = C.get("CONST " + e.getKey());
            if (c == null || !c.equals(e.getValue())) {
                wrong.add(e.getKey() + ": C " + c + ", Java " + e.getValue());
            }
        }
        for (Map.Entry<Integer, String> e : Native.ERRNO_NAMES.entrySet()) {
            Long c = C.get("CONST " + e.getValue());
            if (c == null || c.intValue() != e.getKey()) {
                wrong.add(e.getValue() + ": C " + c + ", Java " + e.getKey());
            }
        }
        assertTrue(wrong.isEmpty(), "constants differ: " + wrong);
    }

    @Test
    void theInlineVerbsReadTheFunctionPointersWhereVerbsHDoes() {
        // The data path's function pointers, spelled out: a wrong offset here calls garbage.
        assertEquals(C.get("OFF struct_ibv_context|ops.post_send"), Structs.offset(Structs.IBV_CONTEXT, "ops.post_send"));
        assertEquals(C.get("OFF struct_ibv_context|ops.post_recv"), Structs.offset(Structs.IBV_CONTEXT, "ops.post_recv"));
        assertEquals(C.get("OFF struct_ibv_context|ops.poll_cq"), Structs.offset(Structs.IBV_CONTEXT, "ops.poll_cq"));
        assertEquals(C.get("OFF struct_ibv_context|ops.req_notify_cq"),
                Structs.offset(Structs.IBV_CONTEXT, "ops.req_notify_cq"));
        assertEquals(C.get("OFF struct_verbs_context|query_port"), Structs.offset(Structs.VERBS_CONTEXT, "query_port"));
        assertEquals(C.get("OFF struct_verbs_context|context"), Structs.offset(Structs.VERBS_CONTEXT, "context"));
        assertTrue(CHECKS.size() > 200);
    }
}
