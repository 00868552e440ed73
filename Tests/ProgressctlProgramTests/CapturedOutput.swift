/// Real output of the tools on Debian 12, captured with `2>FILE` and copied here byte for
/// byte (a long git clone keeps every fifth progress line; ffmpeg's stats keep their frame
/// lines): the parsers are tested against what the tools print, not against a guess.
enum CapturedOutput {
    /// `rsync -a --info=progress2 --no-inc-recursive --bwlimit=2000 src/ dst/ (two files, 5 MB)`
    static let rsyncProgress2 = [
        "\r         32,768   0%    0.00kB/s    0:00:00  \r      2,097,152  41%    1.92MB/s    0:00:01  \r    ",
        "  3,000,000  60%    2.02MB/s    0:00:01 (xfr#1, to-chk=1/3)\r      4,310,720  86%    1.94MB/s    0:0",
        "0:00  \r      5,000,000 100%    1.99MB/s    0:00:02 (xfr#2, to-chk=0/3)\r      5,000,000 100%    1.9",
        "9MB/s    0:00:02 (xfr#2, to-chk=0/3)\r      5,000,000 100%    1.98MB/s    0:00:02 (xfr#2, to-chk=0/3",
        ")\r      5,000,000 100%    1.98MB/s    0:00:02 (xfr#2, to-chk=0/3)\n",
    ].joined()
    /// `curl -# -o /dev/null http://127.0.0.1:PORT/f (trickle server, 600 kB at 200 kB/s)`
    static let curlBar = [
        "\r##                                                                         3.3%\r####             ",
        "                                                          6.7%\r#######                             ",
        "                                      10.0%\r#########                                              ",
        "                   13.3%\r############                                                              ",
        "16.7%\r##############                                                            20.0%\r############",
        "####                                                          23.3%\r###################            ",
        "                                           26.7%\r#####################                             ",
        "                        30.0%\r########################                                             ",
        "     33.3%\r##########################                                                36.7%\r#######",
        "#######################                                            41.7%\r##########################",
        "######                                          45.0%\r##################################           ",
        "                             48.3%\r#####################################                           ",
        "          51.7%\r#######################################                                   55.0%\r##",
        "########################################                                58.3%\r#####################",
        "#######################                              61.7%\r########################################",
        "######                            65.0%\r#################################################          ",
        "               68.3%\r###################################################                       71.7",
        "%\r######################################################                    75.0%\r################",
        "########################################                  78.3%\r###################################",
        "#######################                81.7%\r######################################################",
        "#######             85.0%\r###############################################################          ",
        " 88.3%\r##################################################################        91.7%\r###########",
        "#########################################################      95.0%\r##############################",
        "########################################    98.3%\r#################################################",
        "####################### 100.0%\n",
    ].joined()
    /// `curl -o /dev/null http://127.0.0.1:PORT/f`
    static let curlMeter = [
        "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n",
        "                                 Dload  Upload   Total   Spent    Left  Speed\n",
        "\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0\r 11  585k   11 700",
        "00    0     0   214k      0  0:00:02 --:--:--  0:00:02  214k\r 45  585k   45  263k    0     0   197k",
        "      0  0:00:02  0:00:01  0:00:01  197k\r 78  585k   78  458k    0     0   195k      0  0:00:02  0:",
        "00:02 --:--:--  195k\r100  585k  100  585k    0     0   192k      0  0:00:03  0:00:03 --:--:--  192k",
        "\n",
    ].joined()
    /// `wget -O /dev/null http://127.0.0.1:PORT/f`
    static let wgetDots = [
        "--2026-12-02 07:41:27--  http://127.0.0.1:43713/f\n",
        "Connecting to 127.0.0.1:43713... connected.\n",
        "HTTP request sent, awaiting response... 200 OK\n",
        "Length: 600000 (586K) [application/octet-stream]\n",
        "Saving to: ‘/dev/null’\n",
        "\n",
        "     0K .......... .......... .......... .......... ..........  8%  194K 3s\n",
        "    50K .......... .......... .......... .......... .......... 17%  174K 3s\n",
        "   100K .......... .......... .......... .......... .......... 25%  196K 2s\n",
        "   150K .......... .......... .......... .......... .......... 34%  199K 2s\n",
        "   200K .......... .......... .......... .......... .......... 42%  199K 2s\n",
        "   250K .......... .......... .......... .......... .......... 51%  199K 1s\n",
        "   300K .......... .......... .......... .......... .......... 59%  194K 1s\n",
        "   350K .......... .......... .......... .......... .......... 68%  151K 1s\n",
        "   400K .......... .......... .......... .......... .......... 76%  165K 1s\n",
        "   450K .......... .......... .......... .......... .......... 85%  194K 0s\n",
        "   500K .......... .......... .......... .......... .......... 93%  199K 0s\n",
        "   550K .......... .......... .......... .....                100%  233K=3.1s\n",
        "\n",
        "2026-12-02 07:41:30 (188 KB/s) - ‘/dev/null’ saved [600000/600000]\n",
        "\n",
    ].joined()
    /// `wget --progress=bar:force -O /dev/null http://127.0.0.1:PORT/f`
    static let wgetBar = [
        "--2026-12-02 07:41:30--  http://127.0.0.1:43713/f\n",
        "Connecting to 127.0.0.1:43713... connected.\n",
        "HTTP request sent, awaiting response... 200 OK\n",
        "Length: 600000 (586K) [application/octet-stream]\n",
        "Saving to: ‘/dev/null’\n",
        "\n",
        "\r/dev/null             0%[                    ]       0  --.-KB/s               \r/dev/null        ",
        "     8%[>                   ]  47.06K   227KB/s               \r/dev/null            14%[=>         ",
        "         ]  86.12K   211KB/s               \r/dev/null            21%[===>                ] 125.19K ",
        "  205KB/s               \r/dev/null            28%[====>               ] 164.25K   203KB/s          ",
        "     \r/dev/null            34%[=====>              ] 203.31K   201KB/s               \r/dev/null   ",
        "         41%[=======>            ] 242.38K   200KB/s               \r/dev/null            48%[======",
        "==>           ] 281.44K   199KB/s               \r/dev/null            54%[=========>          ] 320",
        ".50K   198KB/s               \r/dev/null            61%[===========>        ] 359.56K   198KB/s     ",
        "          \r/dev/null            68%[============>       ] 398.62K   196KB/s               \r/dev/nu",
        "ll            74%[=============>      ] 437.69K   196KB/s               \r/dev/null            81%[=",
        "==============>    ] 476.75K   195KB/s               \r/dev/null            88%[================>   ",
        "] 515.81K   195KB/s               \r/dev/null            94%[=================>  ] 554.88K   195KB/s",
        "               \r/dev/null           100%[===================>] 585.94K   196KB/s    in 3.0s    \n",
        "\n",
        "2026-12-02 07:41:33 (196 KB/s) - ‘/dev/null’ saved [600000/600000]\n",
        "\n",
    ].joined()
    /// `git clone --progress --no-local repo clone`
    static let gitClone = [
        "Cloning into 'clone'...\n",
        "remote: Enumerating objects: 32, done.        \n",
        "remote: Counting objects:   9% (3/32)        \rremote: Counting objects:  25% (8/32)        \rremote",
        ": Counting objects:  40% (13/32)        \rremote: Counting objects:  56% (18/32)        \rremote: Co",
        "unting objects:  71% (23/32)        \rremote: Counting objects:  87% (28/32)        \rremote: Counti",
        "ng objects: 100% (32/32), done.        \n",
        "remote: Compressing objects:  15% (5/32)        \rremote: Compressing objects:  31% (10/32)        \r",
        "remote: Compressing objects:  46% (15/32)        \rremote: Compressing objects:  62% (20/32)        ",
        "\rremote: Compressing objects:  78% (25/32)        \rremote: Compressing objects:  93% (30/32)      ",
        "  \rremote: Compressing objects: 100% (32/32), done.        \n",
        "Receiving objects:   6% (2/32)\rReceiving objects:  21% (7/32)\rReceiving objects:  37% (12/32)\rRec",
        "eiving objects:  53% (17/32)\rReceiving objects:  68% (22/32)\rReceiving objects:  84% (27/32)\rRece",
        "iving objects:  96% (31/32)\rReceiving objects: 100% (32/32), 587.37 KiB | 5.39 MiB/s, done.\n",
    ].joined()
    /// `dd if=a.bin bs=4k status=progress | pv -q -L 1m (a.bin: 3,000,000 bytes)`
    static let ddStatus = [
        "\r1249280 bytes (1.2 MB, 1.2 MiB) copied, 1 s, 1.2 MB/s\r2297856 bytes (2.3 MB, 2.2 MiB) copied, 2 s",
        ", 1.1 MB/s\n",
        "732+1 records in\n",
        "732+1 records out\n",
        "3000000 bytes (3.0 MB, 2.9 MiB) copied, 2.70491 s, 1.1 MB/s\n",
    ].joined()
    /// `pv -n -L 1m a.bin`
    static let pvNumeric = [
        "34\n",
        "69\n",
        "100\n",
    ].joined()
    /// `ffmpeg -re -f lavfi -i testsrc=size=160x120:rate=25 -t 2 -c:v mpeg4 -progress pipe:1
    /// -stats_period 0.5 -nostats o.mp4`
    static let ffmpegProgress = [
        "frame=1\n",
        "fps=0.00\n",
        "stream_0_0_q=3.9\n",
        "bitrate=4512.8kbits/s\n",
        "total_size=44\n",
        "out_time_us=78\n",
        "out_time_ms=78\n",
        "out_time=00:00:00.000078\n",
        "dup_frames=0\n",
        "drop_frames=0\n",
        "speed=N/A\n",
        "progress=continue\n",
        "frame=13\n",
        "fps=0.00\n",
        "stream_0_0_q=1.6\n",
        "bitrate=   0.7kbits/s\n",
        "total_size=44\n",
        "out_time_us=480078\n",
        "out_time_ms=480078\n",
        "out_time=00:00:00.480078\n",
        "dup_frames=0\n",
        "drop_frames=0\n",
        "speed=0.951x\n",
        "progress=continue\n",
        "frame=26\n",
        "fps=25.72\n",
        "stream_0_0_q=2.0\n",
        "bitrate=   0.4kbits/s\n",
        "total_size=44\n",
        "out_time_us=1000078\n",
        "out_time_ms=1000078\n",
        "out_time=00:00:01.000078\n",
        "dup_frames=0\n",
        "drop_frames=0\n",
        "speed=0.989x\n",
        "progress=continue\n",
        "frame=38\n",
        "fps=25.12\n",
        "stream_0_0_q=2.0\n",
        "bitrate=   0.2kbits/s\n",
        "total_size=44\n",
        "out_time_us=1480078\n",
        "out_time_ms=1480078\n",
        "out_time=00:00:01.480078\n",
        "dup_frames=0\n",
        "drop_frames=0\n",
        "speed=0.979x\n",
        "progress=continue\n",
        "frame=50\n",
        "fps=24.91\n",
        "stream_0_0_q=2.0\n",
        "bitrate= 223.9kbits/s\n",
        "total_size=54864\n",
        "out_time_us=1960078\n",
        "out_time_ms=1960078\n",
        "out_time=00:00:01.960078\n",
        "dup_frames=0\n",
        "drop_frames=0\n",
        "speed=0.977x\n",
        "progress=end\n",
    ].joined()
    /// `ffmpeg -re -i o.mp4 o2.mp4 (o.mp4: 3 s), stderr`
    static let ffmpegStats = [
        "  Duration: 00:00:03.00, start: 0.000000, bitrate: 38 kb/s\n",
        "frame=    1 fps=0.0 q=0.0 size=       0kB time=00:00:00.00 bitrate=N/A speed=   0x    \rframe=   11 ",
        "fps=0.0 q=0.0 size=       0kB time=00:00:00.00 bitrate=N/A speed=   0x    \rframe=   24 fps= 24 q=0.",
        "0 size=       0kB time=00:00:00.00 bitrate=N/A speed=   0x    \rframe=   37 fps= 24 q=0.0 size=     ",
        "  0kB time=00:00:00.00 bitrate=N/A speed=   0x    \rframe=   49 fps= 24 q=28.0 size=       0kB time=",
        "-00:00:00.03 bitrate=N/A speed=N/A    \rframe=   62 fps= 24 q=28.0 size=       0kB time=00:00:00.48 ",
        "bitrate=   0.8kbits/s speed=0.189x    \rframe=   75 fps= 25 q=28.0 size=       0kB time=00:00:01.00 ",
        "bitrate=   0.4kbits/s speed=0.329x    \rframe=   75 fps= 23 q=-1.0 Lsize=      14kB time=00:00:02.88",
        " bitrate=  38.4kbits/s speed=0.889x    \n",
    ].joined()
    /// `apt-get -o APT::Status-Fd=3 install --reinstall -y pv, fd 3`
    static let aptStatus = [
        "dlstatus:1:0.0000:Retrieving file 1 of 1\n",
        "dlstatus:1:0.0000:Retrieving file 1 of 1\n",
        "dlstatus:1:0.0000:Retrieving file 1 of 1\n",
        "dlstatus:1:0.0000:Retrieving file 1 of 1\n",
        "dlstatus:1:0.0000:Retrieving file 1 of 1\n",
        "dlstatus:1:0.0000:Retrieving file 1 of 1\n",
        "dlstatus:1:100.0000:Retrieving file 1 of 1\n",
        "pmstatus:dpkg-exec:0.0000:Running dpkg\n",
        "pmstatus:pv:0.0000:Preparing pv (amd64)\n",
        "pmstatus:pv:20.0000:Unpacking pv (amd64)\n",
        "pmstatus:pv:40.0000:Installing pv (amd64)\n",
        "pmstatus:dpkg-exec:40.0000:Running dpkg\n",
        "pmstatus:pv:40.0000:Preparing to configure pv (amd64)\n",
        "pmstatus:pv:60.0000:Configuring pv (amd64)\n",
        "pmstatus:pv:80.0000:Installed pv (amd64)\n",
    ].joined()
    /// `apt-get -o APT::Status-Fd=1 -y install broken clash` from a local repository (a
    /// preinst that exits 1; a package shipping a file of an installed one), its status lines.
    static let aptErrors = [
        "pmstatus:dpkg-exec:0.0000:Running dpkg\n",
        "pmstatus:broken:0.0000:Preparing broken (amd64)\n",
        "pmstatus:broken:20.0000:Unpacking broken (amd64)\n",
        "pmerror:/tmp/aptx/repo/./broken_1.0_all.deb:20.0000:new broken package pre-installation script subprocess "
            + "returned error exit status 1\n",
        "pmstatus:clash:20.0000:Preparing clash (amd64)\n",
        "pmstatus:clash:40.0000:Unpacking clash (amd64)\n",
        "pmerror:/tmp/aptx/repo/./clash_1.0_all.deb:40.0000:trying to overwrite '/usr/share/alpha/data', "
            + "which is also in package alpha 1.0\n",
    ].joined()
    /// `apt -y install progressd-test-alpha` on a terminal of 24 rows (script(1), `stty rows 24
    /// cols 80`), no Status-Fd, from a file: source: the download's line, then `apt`'s bar for
    /// dpkg on the bottom row.
    static let aptTerminal = [
        "\rReading package lists... 0%\r\rReading package lists... 100%\r\rReading package lists... Done\r\r\n",
        "\rBuilding dependency tree... 0%\r\rBuilding dependency tree... 0%\r\rBuilding dependency tree... 50%\r"
            + "\rBuilding dependency tree... 50%\r\rBuilding dependency tree... Done\r\r\n",
        "\rReading state information... 0% \r\rReading state information... 0%\r"
            + "\rReading state information... Done\r\r\n",
        "The following NEW packages will be installed:\r\n",
        "  progressd-test-alpha\r\n",
        "0 upgraded, 1 newly installed, 0 to remove and 0 not upgraded.\r\n",
        "Need to get 0 B/301 kB of archives.\r\n",
        "After this operation, 0 B of additional disk space will be used.\r\n",
        "\u{1B}[33m\r0% [Working]\u{1B}[0m\r            \r"
            + "Get:1 file:/tmp/aptpty/repo ./ progressd-test-alpha 2.0 [301 kB]\r\n",
        "\u{1B}[33m\r100% [Working]\u{1B}[0m\r              \r\n",
        "\u{1B}7\u{1B}[0;23r\u{1B}8\u{1B}[1ASelecting previously unselected package progressd-test-alpha.\r\n",
        "(Reading database ... \r(Reading database ... 100%\r"
            + "(Reading database ... 7 files and directories currently installed.)\r\n",
        "Preparing to unpack .../progressd-test-alpha_2.0_all.deb ...\r\n",
        "\u{1B}7\u{1B}[24;0f\u{1B}[42m\u{1B}[30mProgress: [  0%]\u{1B}[49m\u{1B}[39m "
            + "[..........................................................] \u{1B}8"
            + "\u{1B}7\u{1B}[24;0f\u{1B}[42m\u{1B}[30mProgress: [ 20%]\u{1B}[49m\u{1B}[39m "
            + "[###########...............................................] \u{1B}8"
            + "Unpacking progressd-test-alpha (2.0) ...\r\n",
        "\u{1B}7\u{1B}[24;0f\u{1B}[42m\u{1B}[30mProgress: [ 40%]\u{1B}[49m\u{1B}[39m "
            + "[#######################...................................] \u{1B}8"
            + "Setting up progressd-test-alpha (2.0) ...\r\n",
        "\u{1B}7\u{1B}[24;0f\u{1B}[42m\u{1B}[30mProgress: [ 60%]\u{1B}[49m\u{1B}[39m "
            + "[##################################........................] \u{1B}8"
            + "\u{1B}7\u{1B}[24;0f\u{1B}[42m\u{1B}[30mProgress: [ 80%]\u{1B}[49m\u{1B}[39m "
            + "[##############################################............] \u{1B}8\r\n",
        "\u{1B}7\u{1B}[0;24r\u{1B}8\u{1B}[1A\u{1B}[J\n",
    ].joined()
}
