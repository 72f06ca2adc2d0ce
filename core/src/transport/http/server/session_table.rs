//! This replica's table of live HTTP sessions, with admission when it is full.
//!
//! A full table makes room for a new session by closing an idle one (no open stream, nothing in
//! flight), so that an initialize flood cannot lock clients out until sessions expire; only
//! when every session is busy is a new one refused. Admission must be correct under concurrent
//! initializes (two callers never pick the same victim, and the table never holds more than its
//! limit) and must not cost a scan of every session per initialize once the table is full.
//!
//! The victim is the least recently active idle session, found in an ordered index of the
//! sessions by activity stamp that requests never touch: a request only writes its session's
//! stamp ([`HttpSession::touch`]), and the index is corrected lazily. Eviction takes the entry
//! with the oldest stamp: when its session was active since it was indexed, it is indexed
//! again under its new stamp (each such move pays for one burst of activity); when it is busy,
//! it is indexed as used now (an open stream or a running request is use); otherwise it is the
//! victim. So admission costs O(log n) amortized, with no scan of the table, and everything
//! happens under the table's one lock, so concurrent initializes pick different victims and
//! the table never holds more than its limit.

use super::session::HttpSession;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, Weak};

/// A session's place in the activity index.
struct Indexed {
    id: Arc<str>,
    session: Weak<HttpSession>,
}

#[derive(Default)]
struct Inner {
    sessions: HashMap<Arc<str>, Arc<HttpSession>>,
    /// Every live session once, by (activity stamp when indexed, order of indexing); also the
    /// left-overs of removed sessions, dropped when met or compacted.
    by_activity: BTreeMap<(u64, u64), Indexed>,
    /// The next order of indexing (ties of the millisecond stamp go oldest first).
    next_seq: u64,
}

/// The sessions live on this replica, by id.
#[derive(Default)]
pub(super) struct SessionTable(Mutex<Inner>);

/// The outcome of [`SessionTable::admit`].
pub(super) enum Admission {
    /// The session is in the table; `evicted` were closed to make room (the caller ends them,
    /// outside the table's lock).
    Admitted {
        session: Arc<HttpSession>,
        evicted: Vec<Arc<HttpSession>>,
    },
    /// The table is full and every session in it is busy.
    Full,
}

impl SessionTable {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session `id`, if live here.
    pub(super) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.lock().sessions.get(id).cloned()
    }

    /// How many sessions are live.
    pub(super) fn len(&self) -> usize {
        self.lock().sessions.len()
    }

    /// Removes session `id` (its place in the index is dropped when met).
    pub(super) fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.lock().sessions.remove(id)
    }

    /// Every live session, as `(id, session)`.
    pub(super) fn snapshot(&self) -> Vec<(Arc<str>, Arc<HttpSession>)> {
        let inner = self.lock();
        inner
            .sessions
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Removes and returns every session.
    pub(super) fn drain(&self) -> Vec<Arc<HttpSession>> {
        let mut inner = self.lock();
        inner.by_activity.clear();
        inner.sessions.drain().map(|(_, v)| v).collect()
    }

    /// Adds `session` as `id` when the table has room for it or can make room by evicting
    /// idle sessions, keeping at most `max` sessions. When a session `id` is already live
    /// (another request rebuilt it meanwhile), that one is returned and `session` dropped.
    pub(super) fn admit(&self, id: Arc<str>, session: Arc<HttpSession>, max: usize) -> Admission {
        let mut inner = self.lock();
        if let Some(existing) = inner.sessions.get(&id) {
            return Admission::Admitted {
                session: existing.clone(),
                evicted: Vec::new(),
            };
        }
        let mut evicted = Vec::new();
        while inner.sessions.len() >= max.max(1) {
            match inner.evict_one() {
                Some(victim) => evicted.push(victim),
                None => return Admission::Full,
            }
        }
        let stamp = session.activity_stamp();
        inner.index(stamp, id.clone(), Arc::downgrade(&session));
        inner.sessions.insert(id, session.clone());
        inner.compact();
        Admission::Admitted { session, evicted }
    }
}

impl Inner {
    fn index(&mut self, stamp: u64, id: Arc<str>, session: Weak<HttpSession>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.by_activity
            .insert((stamp, seq), Indexed { id, session });
    }

    /// Removes the least recently active idle session (a closed one counts as idle); `None`
    /// when every session is busy.
    fn evict_one(&mut self) -> Option<Arc<HttpSession>> {
        // Busy sessions are indexed as used now, after the search (so it meets each at most
        // once); a session re-indexed under its newer stamp may be met again, but only once
        // more unless it is active again meanwhile.
        let mut busy = Vec::new();
        let mut victim = None;
        let mut turns = 2 * self.sessions.len() + 2;
        while turns > 0 {
            turns -= 1;
            let Some(((stamp, _), entry)) = self.by_activity.pop_first() else {
                break;
            };
            let Some(s) = entry.session.upgrade() else {
                continue;
            };
            if !self
                .sessions
                .get(&entry.id)
                .is_some_and(|l| Arc::ptr_eq(l, &s))
            {
                continue;
            }
            if s.session().is_closed() {
                victim = Some((entry.id, s));
                break;
            }
            if s.has_open_stream() || s.session().in_flight_count() > 0 {
                busy.push(entry);
                continue;
            }
            let now = s.activity_stamp();
            if now > stamp {
                self.index(now, entry.id, entry.session);
                continue;
            }
            victim = Some((entry.id, s));
            break;
        }
        let now = busy_stamp();
        for entry in busy {
            self.index(now, entry.id, entry.session);
        }
        let (id, s) = victim?;
        self.sessions.remove(&id);
        Some(s)
    }

    /// Drops the index's left-overs of removed sessions once they outnumber the live ones.
    fn compact(&mut self) {
        if self.by_activity.len() > 2 * self.sessions.len() + 64 {
            let sessions = &self.sessions;
            self.by_activity.retain(|_, e| {
                sessions
                    .get(&e.id)
                    .is_some_and(|l| std::ptr::eq(Arc::as_ptr(l), e.session.as_ptr()))
            });
        }
    }
}

/// The stamp of "used now", on [`HttpSession::activity_stamp`]'s scale.
fn busy_stamp() -> u64 {
    HttpSession::now_stamp()
}
