//! git's pack files, read and written in-process: the objects of one
//! scaffold record go into the repository as one pack (`objects/pack/
//! pack-<checksum>.pack`) with its version 2 index (`.idx`), instead of one
//! loose file, in a folder of its own, per object.
//!
//! A pack is `PACK`, its version (2) and its number of objects, then each
//! object: a header (its type in bits 4–6 of the first byte, its size in
//! the low 4 bits and 7 bits of each following byte, the top bit saying
//! one more byte follows) and its zlib-compressed body; last, the SHA-1 of
//! everything before. The index lists the objects sorted by id: a fan-out
//! table (how many ids start with a byte up to each value), the ids, the
//! CRC-32 of each packed entry, their offsets in the pack, then the pack's
//! checksum and its own. Only whole objects are read here; an object git
//! stored as a delta of another (after `git gc`) is left to git.

use super::durable::{self, NewFiles};
use anyhow::{Context as _, Result, bail};
use std::fs;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

/// The first four bytes of a version 2 index, then its version.
const INDEX_MAGIC: [u8; 4] = [0xff, b't', b'O', b'c'];

/// An index of this size or larger is not read here: a repository that
/// large is left to git, whose indexes are mapped, not read whole.
const LARGEST_INDEX: u64 = 8 << 20;

/// The type number a pack gives an object of `kind`.
pub fn type_number(kind: &str) -> Result<u8> {
    match kind {
        "commit" => Ok(1),
        "tree" => Ok(2),
        "blob" => Ok(3),
        other => bail!("no pack type for a {other}"),
    }
}

/// The kind of object a pack's type number stands for; `None` for the
/// delta types (and tags, which records never hold).
fn kind_of(number: u8) -> Option<&'static str> {
    match number {
        1 => Some("commit"),
        2 => Some("tree"),
        3 => Some("blob"),
        _ => None,
    }
}

/// One pack's index, read whole, and where its pack is.
#[derive(Debug, Clone)]
pub struct PackIndex {
    pack: PathBuf,
    bytes: Vec<u8>,
    count: usize,
}

impl PackIndex {
    /// Reads the index `path` (`….idx`, its pack beside it).
    pub fn read(path: &Path) -> Result<Self> {
        let bytes = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let header_ok = bytes.len() >= 8 + 256 * 4 + 40
            && bytes[..4] == INDEX_MAGIC
            && bytes[4..8] == 2u32.to_be_bytes();
        if !header_ok {
            bail!("{} is not a version 2 pack index", path.display());
        }
        let count = be32(&bytes, 8 + 255 * 4) as usize;
        if bytes.len() < 8 + 256 * 4 + count * 28 + 40 {
            bail!("{} is cut short", path.display());
        }
        Ok(Self {
            pack: path.with_extension("pack"),
            bytes,
            count,
        })
    }

    /// The position of `id` (20 bytes) in the sorted list, if listed.
    fn position(&self, id: &[u8]) -> Option<usize> {
        let first = usize::from(id[0]);
        let start = if first == 0 {
            0
        } else {
            be32(&self.bytes, 8 + (first - 1) * 4) as usize
        };
        let end = be32(&self.bytes, 8 + first * 4) as usize;
        let ids = 8 + 256 * 4;
        let (mut low, mut high) = (start, end.min(self.count));
        while low < high {
            let middle = (low + high) / 2;
            let at = ids + middle * 20;
            match self.bytes[at..at + 20].cmp(id) {
                std::cmp::Ordering::Equal => return Some(middle),
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
            }
        }
        None
    }

    /// Whether the pack holds the object `id` (20 bytes).
    pub fn contains(&self, id: &[u8]) -> bool {
        self.position(id).is_some()
    }

    /// Where the entry at `position` starts in the pack; `None` past 2 GiB
    /// (the index's table of large offsets, not read here).
    fn offset(&self, position: usize) -> Option<u64> {
        let offsets = 8 + 256 * 4 + self.count * 24;
        let offset = be32(&self.bytes, offsets + position * 4);
        (offset & 0x8000_0000 == 0).then_some(u64::from(offset))
    }

    /// The kind and body of the object `id` (20 bytes) when this pack holds
    /// it whole; `None` when it does not hold it, or holds it as a delta.
    pub fn read_object(&self, id: &[u8]) -> Result<Option<(String, Vec<u8>)>> {
        let Some(offset) = self.position(id).and_then(|p| self.offset(p)) else {
            return Ok(None);
        };
        // Its entry ends where the next one starts, or at the checksum; only
        // that much of the pack is read.
        let cannot_read = || format!("cannot read {}", self.pack.display());
        let mut pack = fs::File::open(&self.pack).with_context(cannot_read)?;
        let pack_end = pack.metadata().with_context(cannot_read)?.len();
        let end = (0..self.count)
            .filter_map(|p| self.offset(p))
            .filter(|other| *other > offset)
            .min()
            .unwrap_or(pack_end.saturating_sub(20));
        let mut entry = Vec::new();
        pack.seek(SeekFrom::Start(offset))
            .with_context(cannot_read)?;
        pack.take(end.saturating_sub(offset))
            .read_to_end(&mut entry)
            .with_context(cannot_read)?;
        let entry = entry.as_slice();
        let (number, size, header) = entry_header(entry)
            .with_context(|| format!("a corrupt entry in {}", self.pack.display()))?;
        let Some(kind) = kind_of(number) else {
            return Ok(None);
        };
        let body = miniz_oxide::inflate::decompress_to_vec_zlib(&entry[header..])
            .map_err(|e| anyhow::anyhow!("a corrupt entry in {}: {e:?}", self.pack.display()))?;
        if body.len() != size {
            bail!("a corrupt entry in {}: wrong size", self.pack.display());
        }
        Ok(Some((kind.to_string(), body)))
    }
}

/// An entry's type number, its object's size and the length of its header.
fn entry_header(entry: &[u8]) -> Option<(u8, usize, usize)> {
    let first = *entry.first()?;
    let number = (first >> 4) & 0x7;
    let mut size = usize::from(first & 0x0f);
    let mut shift = 4;
    let mut used = 1;
    let mut more = first & 0x80 != 0;
    while more {
        let byte = *entry.get(used)?;
        size |= usize::from(byte & 0x7f).checked_shl(shift)?;
        shift += 7;
        used += 1;
        more = byte & 0x80 != 0;
    }
    Some((number, size, used))
}

/// The index of every pack in the object folder `objects`; `None` when one
/// is too large, or not one this module reads (another version, cut
/// short): git then reads the repository, and says what is wrong with it.
pub fn indexes(objects: &Path) -> Result<Option<Vec<PackIndex>>> {
    let folder = objects.join("pack");
    let listing = match fs::read_dir(&folder) {
        Ok(listing) => listing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Some(Vec::new())),
        Err(e) => return Err(e).context(format!("cannot list {}", folder.display())),
    };
    let mut indexes = Vec::new();
    for entry in listing {
        let entry = entry?;
        let path = entry.path();
        // Only `pack-*.idx` beside its pack: a crash can leave a pack
        // without its index, a temporary file, or an index whose pack is
        // gone, and none of their objects can be read.
        let named = entry.file_name().to_string_lossy().starts_with("pack-");
        if !named || path.extension().is_none_or(|ext| ext != "idx") {
            continue;
        }
        if !path.with_extension("pack").is_file() {
            continue;
        }
        if entry.metadata()?.len() >= LARGEST_INDEX {
            return Ok(None);
        }
        match PackIndex::read(&path) {
            Ok(index) => indexes.push(index),
            Err(_) => return Ok(None),
        }
    }
    Ok(Some(indexes))
}

/// An object to pack: its type number, its id (20 bytes), its body.
pub struct Packed<'a> {
    /// Its type number ([`type_number`]).
    pub number: u8,
    /// Its id, the SHA-1 of its header and body.
    pub id: [u8; 20],
    /// Its body, as its kind encodes it.
    pub body: &'a [u8],
}

/// Writes `objects` as one pack and its index into the object folder
/// `objects`, durably (git flushes its packs too), before the caller
/// points a ref at them: both written under temporary names and flushed,
/// then given their names (the pack before its index: git finds a pack by
/// its index, so it never sees one without the other), then those names
/// flushed. Read-only, as git makes them. The temporary names
/// (`tmp_pack_<pid>_<checksum>`, `tmp_idx_…`, unique to this process, and
/// with no `.idx` for a reader to take for an index) are git's own kind of
/// temporaries, which `git gc` removes when a crash left them.
pub fn write(objects: &Path, entries: &[Packed]) -> Result<()> {
    let folder = objects.join("pack");
    fs::create_dir_all(&folder).with_context(|| format!("cannot create {}", folder.display()))?;
    let (pack, listed) = pack_bytes(entries)?;
    let checksum: [u8; 20] = pack[pack.len() - 20..].try_into()?;
    let name = format!("pack-{}", hex(&checksum));
    let index = index_bytes(listed, &checksum);
    // (temporary name, name, bytes), the pack first.
    let files = [("pack", pack.as_slice()), ("idx", index.as_slice())].map(|(extension, bytes)| {
        let temp = folder.join(format!(
            "tmp_{extension}_{}_{}",
            std::process::id(),
            hex(&checksum)
        ));
        (temp, folder.join(format!("{name}.{extension}")), bytes)
    });
    let mut written = NewFiles::default();
    for (temp, _, bytes) in &files {
        let _ = fs::remove_file(temp);
        written
            .write(temp, bytes, durable::mode(0o444))
            .with_context(|| format!("cannot write {}", temp.display()))?;
    }
    written.flush().context("cannot flush a new pack")?;
    for (temp, path, _) in &files {
        match durable::rename_new(temp, path) {
            Ok(()) => {}
            // There already: the same bytes (a pack is named by its checksum).
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let _ = fs::remove_file(temp);
            }
            Err(e) => return Err(e).context(format!("cannot write {}", path.display())),
        }
    }
    durable::sync_dirs([folder.as_path()]).context("cannot flush a new pack's name")
}

/// An object as a pack's index lists it.
struct Listed {
    id: [u8; 20],
    /// The CRC-32 of its entry in the pack.
    crc: u32,
    /// Where its entry starts in the pack.
    offset: u32,
}

/// The bytes of a pack of `entries`, and how its index lists each one.
fn pack_bytes(entries: &[Packed]) -> Result<(Vec<u8>, Vec<Listed>)> {
    let mut pack = b"PACK".to_vec();
    pack.extend(2u32.to_be_bytes());
    pack.extend(u32::try_from(entries.len())?.to_be_bytes());
    let mut listed = Vec::with_capacity(entries.len());
    for entry in entries {
        let offset = u32::try_from(pack.len())
            .ok()
            .filter(|offset| offset & 0x8000_0000 == 0)
            .context("a record's pack is larger than 2 GiB")?;
        let mut bytes = header_bytes(entry.number, entry.body.len());
        bytes.extend(miniz_oxide::deflate::compress_to_vec_zlib(entry.body, 1));
        listed.push(Listed {
            id: entry.id,
            crc: crc32(&bytes),
            offset,
        });
        pack.extend(bytes);
    }
    let checksum = sha1_bytes(&pack);
    pack.extend(checksum);
    Ok((pack, listed))
}

/// An entry's header: type number and size.
fn header_bytes(number: u8, size: usize) -> Vec<u8> {
    let mut bytes = vec![(number << 4) | (size & 0x0f) as u8];
    let mut rest = size >> 4;
    while rest > 0 {
        *bytes.last_mut().unwrap_or(&mut 0) |= 0x80;
        bytes.push((rest & 0x7f) as u8);
        rest >>= 7;
    }
    bytes
}

/// The bytes of the index of a pack whose checksum is `checksum`, listing
/// `listed`.
fn index_bytes(mut listed: Vec<Listed>, checksum: &[u8; 20]) -> Vec<u8> {
    listed.sort_by_key(|object| object.id);
    let mut index = INDEX_MAGIC.to_vec();
    index.extend(2u32.to_be_bytes());
    for byte in 0..=255u8 {
        let up_to = listed.iter().filter(|object| object.id[0] <= byte).count() as u32;
        index.extend(up_to.to_be_bytes());
    }
    listed.iter().for_each(|object| index.extend(object.id));
    listed
        .iter()
        .for_each(|object| index.extend(object.crc.to_be_bytes()));
    listed
        .iter()
        .for_each(|object| index.extend(object.offset.to_be_bytes()));
    index.extend(checksum);
    let own = sha1_bytes(&index);
    index.extend(own);
    index
}

/// Bytes in lowercase hex (object ids, pack names).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A big-endian 32-bit number at `at` of `bytes`.
fn be32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The SHA-1 of `bytes`.
fn sha1_bytes(bytes: &[u8]) -> [u8; 20] {
    use sha1::{Digest as _, Sha1};
    Sha1::digest(bytes).into()
}

/// The CRC-32 (IEEE, as zlib computes it) of `bytes`.
fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, byte| {
        CRC_TABLE[((crc ^ u32::from(*byte)) & 0xff) as usize] ^ (crc >> 8)
    })
}

/// CRC-32's table, one entry a byte value.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut crc = n as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                0xedb8_8320 ^ (crc >> 1)
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[n] = crc;
        n += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_zlibs() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn entry_headers_read_back() {
        for size in [0, 15, 16, 127, 2048, 1 << 20, (1 << 35) + 3] {
            let bytes = header_bytes(3, size);
            assert_eq!(entry_header(&bytes), Some((3, size, bytes.len())), "{size}");
        }
        assert_eq!(entry_header(&[0x80]), None, "cut short");
    }
}
