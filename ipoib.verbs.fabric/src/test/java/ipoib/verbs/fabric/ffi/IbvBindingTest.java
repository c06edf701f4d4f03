package ipoib.verbs.fabric.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The installed libibverbs: the load binds only what finds the devices, yet refuses a library
 * that lacks any function a device needs; {@link IbvVerbs#SYMBOLS} (what the load checks) is
 * exactly what {@link IbvVerbs} binds.
 */
class IbvBindingTest {
    private static final String LIBIBVERBS = "libibverbs.so.1";

    @Test
    void theCheckedSymbolsAreTheBoundOnes() {
        SymbolLookup real = SymbolLookup.libraryLookup(LIBIBVERBS, Arena.global());
        List<String> asked = new ArrayList<>();
        SymbolLookup recording = name -> {
            asked.add(name);
            return real.find(name);
        };
        IbvVerbs.bind(new Native.Library(LIBIBVERBS, recording, null));
        assertEquals(IbvVerbs.SYMBOLS, asked);
    }

    @Test
    void theLoadBindsTheDeviceFunctionsOnlyWhenAsked() {
        Ibv.Binding binding = Ibv.load(LIBIBVERBS);
        assertNull(binding.failure());
        Ibv ibv = binding.ibv();
        org.junit.jupiter.api.Assertions.assertFalse(ibv.verbsBound());
        IbvVerbs verbs = ibv.verbs();
        org.junit.jupiter.api.Assertions.assertTrue(ibv.verbsBound());
        assertNotNull(verbs.openDevice);
        assertEquals(verbs, ibv.verbs(), "bound once");
    }

    @Test
    void aLibraryWithoutOneDeviceFunctionIsRefusedAtTheLoad() {
        SymbolLookup real = SymbolLookup.libraryLookup(LIBIBVERBS, Arena.global());
        SymbolLookup withoutCreateAh = name -> name.equals("ibv_create_ah") ? Optional.<MemorySegment>empty()
                : real.find(name);
        Native.Library lib = new Native.Library(LIBIBVERBS, withoutCreateAh, null);
        UnsatisfiedLinkError e = org.junit.jupiter.api.Assertions.assertThrows(UnsatisfiedLinkError.class,
                () -> lib.require(IbvVerbs.SYMBOLS));
        assertEquals(LIBIBVERBS + " has no symbol ibv_create_ah", e.getMessage());
    }
}
