//! Tables and threads sized to the memory the system grants: a size that is more than the free
//! memory, or that the allocator refuses, is halved until one fits, and threads are held to
//! those whose tables and stacks fit with head room; the caller tells the user.
//!
//! Linux grants large allocations it cannot back (overcommit) and kills the process when the
//! table is filled, so there the size is first held to the memory the kernel reports available
//! (and to the control group's limit, inside a container). Elsewhere the allocator's refusal is
//! the only signal.

/// Memory that something else will take and that a table must leave: bytes of memory, and
/// bytes of address space (a thread's stack is mapped whole when it starts, though only the
/// pages it reaches are memory).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reserve {
    pub memory: u64,
    pub address_space: u64,
}

impl Reserve {
    /// `n` times this reserve (saturating).
    pub fn times(self, n: usize) -> Reserve {
        let n = n as u64;
        Reserve { memory: self.memory.saturating_mul(n), address_space: self.address_space.saturating_mul(n) }
    }

    /// This reserve and `other` together (saturating).
    pub fn plus(self, other: Reserve) -> Reserve {
        Reserve {
            memory: self.memory.saturating_add(other.memory),
            address_space: self.address_space.saturating_add(other.address_space),
        }
    }
}

/// Makes a table of `mb` MiB with `make`, or else of the largest of `mb / 2`, `mb / 4`, ..., 1
/// MiB that fits in the available memory, less `reserve` (the stacks of the threads that will
/// use it), and that the allocator grants; returns it with its size. Aborts when not even 1 MiB
/// can be had (then nothing else could run either).
pub(crate) fn largest_fitting_leaving<T>(
    mb: usize,
    reserve: Reserve,
    make: impl Fn(usize) -> Option<T>,
) -> (T, usize) {
    largest_fitting_within(mb, room_for_table_mb(reserve), make)
}

/// How many of `wanted` search threads can be had when `current` exist already and each new one
/// takes `each`, after `reserve` is kept for the rest (the net, the table, the stacks of the
/// threads that exist): the new threads take at most three quarters of what is left, so that
/// the table and the system keep some (a table of 1 MiB, a search thread's allocations).
/// At least one; `wanted` where the room cannot be read.
pub(crate) fn threads_that_fit(wanted: usize, current: usize, each: Reserve, reserve: Reserve) -> usize {
    threads_that_fit_in(room(), wanted, current, each, reserve)
}

/// [`threads_that_fit`] in `room`.
fn threads_that_fit_in(room: Room, wanted: usize, current: usize, each: Reserve, reserve: Reserve) -> usize {
    if wanted <= current {
        return wanted.max(1);
    }
    let fit = |room: Option<u64>, reserve: u64, each: u64| {
        room.map_or(usize::MAX, |r| (r.saturating_sub(reserve) / 4 * 3 / each.max(1)) as usize)
    };
    let new = fit(room.memory, reserve.memory, each.memory).min(fit(
        room.address_space,
        reserve.address_space,
        each.address_space,
    ));
    wanted.min(current.saturating_add(new)).max(1)
}

/// The memory and the address space left to the process, where they can be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Room {
    memory: Option<u64>,
    address_space: Option<u64>,
}

impl Room {
    /// Bytes left for a table after `reserve`: the smaller of the two rooms.
    fn left(self, reserve: Reserve) -> Option<u64> {
        let memory = self.memory.map(|m| m.saturating_sub(reserve.memory));
        let address_space = self.address_space.map(|a| a.saturating_sub(reserve.address_space));
        [memory, address_space].into_iter().flatten().min()
    }
}

/// The MiB of a table that fit in the room left after `reserve` (seven eighths of it), where
/// the room can be read.
pub(crate) fn room_for_table_mb(reserve: Reserve) -> Option<usize> {
    room().left(reserve).map(|b| ((b / 8 * 7) >> 20) as usize)
}

/// [`largest_fitting_leaving`] with the room given: `limit_mb` (`None`: unknown) instead of the
/// system's.
pub(crate) fn largest_fitting_within<T>(
    mb: usize,
    limit_mb: Option<usize>,
    make: impl Fn(usize) -> Option<T>,
) -> (T, usize) {
    let mut size = mb.max(1);
    while size > 1 && limit_mb.is_some_and(|limit| size > limit) {
        size /= 2;
    }
    loop {
        if let Some(table) = make(size) {
            return (table, size);
        }
        assert!(size > 1, "out of memory: not even a 1 MiB table can be allocated");
        size /= 2;
    }
}

/// What the system can still give without swapping or killing a process: as memory, Linux's
/// `MemAvailable` held to what the control group (cgroup v2) still allows; as address space, the
/// room left under the process's address-space limit (`ulimit -v`). `None` where none can be
/// read.
fn room() -> Room {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    // The number after `label` on its line of `text`, times `unit`.
    let field = |text: &str, label: &str, unit: u64| {
        let line = text.lines().find(|l| l.starts_with(label))?;
        let n: u64 = line[label.len()..].split_whitespace().next()?.parse().ok()?;
        Some(n.saturating_mul(unit))
    };
    let meminfo = read("/proc/meminfo").and_then(|t| field(&t, "MemAvailable:", 1024));
    let number = |path: &str| read(path)?.trim().parse::<u64>().ok();
    let cgroup = number("/sys/fs/cgroup/memory.max")
        .map(|max| max.saturating_sub(number("/sys/fs/cgroup/memory.current").unwrap_or(0)));
    let address_space =
        read("/proc/self/limits").and_then(|t| field(&t, "Max address space", 1)).map(|max| {
            max.saturating_sub(
                read("/proc/self/status").and_then(|t| field(&t, "VmSize:", 1024)).unwrap_or(0),
            )
        });
    Room { memory: [meminfo, cgroup].into_iter().flatten().min(), address_space }
}

/// Bytes the system can still give: the smaller of [`room`]'s two.
#[cfg(test)]
fn available_bytes() -> Option<u64> {
    room().left(Reserve::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_until_the_allocator_grants() {
        let (size, got) = largest_fitting_within(1000, None, |mb| (mb <= 300).then_some(mb));
        assert_eq!((size, got), (250, 250));
        assert_eq!(largest_fitting_within(64, None, Some), (64, 64));
        assert_eq!(largest_fitting_within(0, None, Some), (1, 1));
    }

    #[test]
    fn halves_to_the_available_memory_first() {
        let tried = std::cell::RefCell::new(Vec::new());
        let make = |mb| {
            tried.borrow_mut().push(mb);
            Some(mb)
        };
        assert_eq!(largest_fitting_within(65536, Some(20000), make), (16384, 16384));
        assert_eq!(*tried.borrow(), vec![16384], "sizes beyond the limit are not even tried");
        assert_eq!(largest_fitting_within(256, Some(0), Some), (1, 1));
    }

    #[test]
    fn threads_take_three_quarters_of_the_room_after_the_reserve() {
        const MB: u64 = 1 << 20;
        let each = Reserve { memory: 100 * MB, address_space: 200 * MB };
        let reserve = Reserve { memory: 200 * MB, address_space: 200 * MB };
        let room = |memory: Option<u64>, address_space: Option<u64>| Room { memory, address_space };
        // 1000 MB left after the reserve: 750 for new threads, 7 of them.
        let r = room(Some(1200 * MB), None);
        assert_eq!(threads_that_fit_in(r, 64, 1, each, reserve), 8);
        assert_eq!(threads_that_fit_in(r, 4, 1, each, reserve), 4);
        // The address space binds: 750 MB of it, 3 threads.
        let r = room(Some(100_000 * MB), Some(1200 * MB));
        assert_eq!(threads_that_fit_in(r, 64, 2, each, reserve), 5);
        // Fewer than there are is always granted, and one at least.
        assert_eq!(threads_that_fit_in(room(Some(0), Some(0)), 64, 3, each, reserve), 3);
        assert_eq!(threads_that_fit_in(room(Some(0), Some(0)), 2, 3, each, reserve), 2);
        assert_eq!(threads_that_fit_in(room(Some(0), None), 64, 0, each, reserve), 1);
        assert_eq!(threads_that_fit_in(room(None, None), 512, 1, each, reserve), 512);
    }

    #[test]
    fn the_available_memory_is_known_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(available_bytes().is_some_and(|b| b > 0));
        }
    }
}
