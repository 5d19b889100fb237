//! The RLP encoding the trie code needs: headers, byte strings and unsigned integers written into a `Vec<u8>`.
//! Lists are written by their callers, which reserve room for the header in front of the payload (see
//! [`finish_list`]) so a node's encoding is never copied just to prepend its length.

/// Header byte of a string whose payload is `len` < 56 bytes is `STRING + len`.
pub const STRING: u8 = 0x80;
/// Header byte of a list whose payload is `len` < 56 bytes is `LIST + len`.
pub const LIST: u8 = 0xc0;
/// RLP of the empty string, also the "no child" / "no value" marker in trie nodes.
pub const EMPTY_STRING: u8 = 0x80;
/// The longest header there is: one byte plus an 8-byte length.
pub const MAX_HEADER: usize = 9;

/// Bytes needed to write `len` big-endian without leading zeros (0 for 0).
fn be_len(len: usize) -> usize {
    (usize::BITS - len.leading_zeros()).div_ceil(8) as usize
}

/// Length of the header for a payload of `len` bytes.
pub fn header_len(len: usize) -> usize {
    if len < 56 { 1 } else { 1 + be_len(len) }
}

/// Writes the header for a payload of `len` bytes (`base` is [`STRING`] or [`LIST`]) at the start of `out`, which
/// must hold [`header_len`]`(len)` bytes.
pub fn write_header(out: &mut [u8], len: usize, base: u8) {
    if len < 56 {
        out[0] = base + len as u8;
        return;
    }
    let n = be_len(len);
    out[0] = base + 55 + n as u8;
    let be = len.to_be_bytes();
    out[1..=n].copy_from_slice(&be[be.len() - n..]);
}

/// Appends the header for a payload of `len` bytes.
pub fn push_header(out: &mut Vec<u8>, len: usize, base: u8) {
    let mut head = [0u8; MAX_HEADER];
    let n = header_len(len);
    write_header(&mut head, len, base);
    out.extend_from_slice(&head[..n]);
}

/// Length of the RLP encoding of the byte string `bytes`.
pub fn string_len(bytes: &[u8]) -> usize {
    match bytes {
        [b] if *b < 0x80 => 1,
        _ => header_len(bytes.len()) + bytes.len(),
    }
}

/// Appends the RLP encoding of the byte string `bytes` (a single byte below 0x80 is its own encoding).
pub fn push_string(out: &mut Vec<u8>, bytes: &[u8]) {
    match bytes {
        [b] if *b < 0x80 => out.push(*b),
        _ => {
            push_header(out, bytes.len(), STRING);
            out.extend_from_slice(bytes);
        }
    }
}

/// Appends the RLP encoding of an unsigned integer (minimal big-endian bytes; 0 is the empty string).
pub fn push_uint(out: &mut Vec<u8>, value: u64) {
    let be = value.to_be_bytes();
    let skip = (value.leading_zeros() / 8) as usize;
    push_string(out, &be[skip..]);
}

/// Turns `buf` = [`MAX_HEADER`] reserved bytes followed by a list payload into a list encoding in place: writes the
/// header right before the payload and returns where the encoding starts (`&buf[start..]` is the list).
pub fn finish_list(buf: &mut [u8]) -> usize {
    let len = buf.len() - MAX_HEADER;
    let start = MAX_HEADER - header_len(len);
    write_header(&mut buf[start..MAX_HEADER], len, LIST);
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        push_string(&mut out, bytes);
        assert_eq!(out.len(), string_len(bytes));
        out
    }

    fn uint(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        push_uint(&mut out, v);
        out
    }

    #[test]
    fn strings() {
        assert_eq!(string(b""), [0x80]);
        assert_eq!(string(&[0x00]), [0x00]);
        assert_eq!(string(&[0x7f]), [0x7f]);
        assert_eq!(string(&[0x80]), [0x81, 0x80]);
        assert_eq!(string(b"dog"), [0x83, b'd', b'o', b'g']);
        let s55 = [7u8; 55];
        assert_eq!(string(&s55)[0], 0xb7);
        let s56 = [7u8; 56];
        assert_eq!(&string(&s56)[..2], [0xb8, 56]);
        let s1024 = vec![7u8; 1024];
        assert_eq!(&string(&s1024)[..3], [0xb9, 0x04, 0x00]);
    }

    #[test]
    fn uints() {
        assert_eq!(uint(0), [0x80]);
        assert_eq!(uint(1), [0x01]);
        assert_eq!(uint(127), [0x7f]);
        assert_eq!(uint(128), [0x81, 0x80]);
        assert_eq!(uint(1024), [0x82, 0x04, 0x00]);
        assert_eq!(
            uint(u64::MAX),
            [0x88, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
        );
    }

    #[test]
    fn lists_in_place() {
        // ["cat", "dog"] = c8 83 'cat' 83 'dog'
        let mut buf = vec![0u8; MAX_HEADER];
        push_string(&mut buf, b"cat");
        push_string(&mut buf, b"dog");
        let start = finish_list(&mut buf);
        assert_eq!(
            &buf[start..],
            [0xc8, 0x83, b'c', b'a', b't', 0x83, b'd', b'o', b'g']
        );
        // An empty list is 0xc0; a 60-byte payload needs a two-byte header.
        let mut buf = vec![0u8; MAX_HEADER];
        let start = finish_list(&mut buf);
        assert_eq!(&buf[start..], [0xc0]);
        let mut buf = vec![0u8; MAX_HEADER];
        buf.extend_from_slice(&[1u8; 60]);
        let start = finish_list(&mut buf);
        assert_eq!(&buf[start..start + 2], [0xf8, 60]);
        assert_eq!(buf.len() - start, 62);
    }
}
