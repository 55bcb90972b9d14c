% SPDX-License-Identifier: GPL-3.0-or-later
% exec-comp.m: doc/examples/exec-comp.py's complementary filter in GNU
% Octave, speaking the exec-filter protocol (doc/filter-exec.md) itself,
% one frame at a time.  On a little-endian machine (typecast uses the
% machine's byte order; the protocol's is little-endian):
%
%   baro-replay run -f exec:"octave-cli -q --no-init-file exec-comp.m" ...
%
% Octave writes nothing to standard output unasked as long as every
% statement ends in ';'; what the filter prints for you belongs on
% standard error: fprintf(stderr, ...).
1;  % a script, not a function file

function b = rd(n)
  % n bytes of the stream, or exit at its end (baro-replay is done)
  b = fread(stdin, n, "uint8=>uint8")';
  if numel(b) < n
    exit(0);
  end
end

function wr(b)
  fwrite(stdout, b, "uint8");
end

kh = 0.05;  % of each baro error, to the height
kv = 0.1;   % ... to the climb, per second
hello = rd(16);
if ~strcmp(char(hello(1:4)), "BRFX") || typecast(hello(5:8), "uint32") != 1
  msg = uint8("exec-comp.m speaks protocol version 1");
  wr([uint8("E"), typecast(uint32(numel(msg)), "uint8"), msg]);
  fflush(stdout);
  exit(1);
end
name = uint8("mcomp");
% version 1, reads the accelerometer (2), the name
wr([uint8("BRFX"), typecast(uint32([1 2 numel(name)]), "uint8"), name]);
fflush(stdout);

have = false; h = 0; v = 0; t = uint64(0);
while true
  kind = rd(1);
  if kind == uint8("R")
    have = false; v = 0; t = uint64(0);
    continue;
  end
  n = double(typecast(rd(4), "uint32"));
  fr = reshape(rd(n * 304), 304, n);
  out = zeros(40, n, "uint8");
  for k = 1:n
    f = fr(:, k)';
    % byte offsets of baro-filter.h's struct baro_filter_frame, plus 1
    now = typecast(f(1:8), "uint64");
    bflags = typecast(f(25:28), "uint32");     % baro[0].flags
    balt = typecast(f(49:56), "double");       % baro[0].alt_m
    aflags = typecast(f(145:148), "uint32");   % accel.flags
    a = typecast(f(201:208), "double");        % accel.vert_accel_mss
    if ~bitand(aflags, 1) || isnan(a)          % SENSOR_VALID
      a = 0;
    end
    if have
      dt = double(now - t) * 1e-6;
      h += v * dt + 0.5 * a * dt * dt;
      v += a * dt;
    end
    t = now;
    if bitand(bflags, 2)                       % SENSOR_FRESH
      if ~have
        h = balt; v = 0; have = true;
      end
      e = balt - h;
      h += kh * e;
      v += kv * e;
    end
    if have
      % alt, climb, test ratio; HEALTHY; baro[0] SELECTED | HEALTHY
      o = [typecast([h v NaN], "uint8"), typecast(uint32([1 5 0 0]), "uint8")];
    else
      o = [typecast([NaN NaN NaN], "uint8"), typecast(uint32([0 4 0 0]), "uint8")];
    end
    out(:, k) = o';
  end
  wr([uint8("O"), typecast(uint32(n), "uint8"), out(:)']);
  fflush(stdout);
end
