package io.ibemu.devfs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Open files by FUSE file handle ({@code fi->fh}): small integers indexing an array, so a lookup
 * on the I/O path is one volatile read and takes no lock. Handle 0 is never used.
 */
final class HandleTable {

    private volatile AtomicReferenceArray<OpenFile> slots = new AtomicReferenceArray<>(64);
    private int[] free = new int[0]; // guarded by this
    private int freeCount; // guarded by this
    private int highest; // guarded by this

    OpenFile get(long handle) {
        AtomicReferenceArray<OpenFile> s = slots;
        return handle > 0 && handle < s.length() ? s.get((int) handle) : null;
    }

    synchronized long add(OpenFile file) {
        int handle = freeCount > 0 ? free[--freeCount] : ++highest;
        AtomicReferenceArray<OpenFile> s = slots;
        if (handle >= s.length()) {
            AtomicReferenceArray<OpenFile> grown = new AtomicReferenceArray<>(s.length() * 2);
            for (int i = 0; i < s.length(); i++) {
                grown.set(i, s.get(i));
            }
            slots = grown;
            s = grown;
        }
        s.set(handle, file);
        return handle;
    }

    synchronized OpenFile remove(long handle) {
        OpenFile file = get(handle);
        if (file != null) {
            slots.set((int) handle, null);
            if (freeCount == free.length) {
                free = Arrays.copyOf(free, Math.max(16, free.length * 2));
            }
            free[freeCount++] = (int) handle;
        }
        return file;
    }

    synchronized List<OpenFile> all() {
        List<OpenFile> files = new ArrayList<>();
        AtomicReferenceArray<OpenFile> s = slots;
        for (int i = 1; i <= highest && i < s.length(); i++) {
            if (s.get(i) != null) {
                files.add(s.get(i));
            }
        }
        return files;
    }

    synchronized List<OpenFile> removeAll() {
        List<OpenFile> files = all();
        slots = new AtomicReferenceArray<>(64);
        free = new int[0];
        freeCount = 0;
        highest = 0;
        return files;
    }
}
