/* A stand-in for Windows' bcryptprimitives.dll, used only to run the tests under Wine 8, which
 * lacks it. Rust's standard library imports ProcessPrng from it (every Windows 10 and later has
 * it); this one fills the buffer from RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 * Never shipped: the release zip holds hayate*.exe, the options file, README and licence only. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
