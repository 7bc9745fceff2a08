"""Traditional Chinese read as simplified, for search: the recipes are written in simplified
Chinese, and a user in Taiwan or Hong Kong types 記憶體 where they say 内存.

Characters are mapped one to one for those the catalogue's Chinese uses (a built-in table, no
dependency), then the few words that differ between the two (Taiwan's terms) are replaced.
"""

from __future__ import annotations

# Traditional characters (Taiwan, Hong Kong) as the simplified ones the recipes are written
# in, for the characters of the catalogue's Chinese; then the few words that differ.
_CHARACTERS = dict(
    pair
    for pair in (
        "個个 們们 這这 錯错 報报 樣样 會会 時时 數数 張张 現现 練练 訓训 變变 沒没 麼么 來来 結结 "
        "進进 對对 碼码 寫写 標标 調调 還还 計计 預预 過过 參参 給给 換换 簽签 層层 圖图 類类 傳传 "
        "設设 測测 轉转 狀状 機机 點点 種种 確确 載载 誤误 隨随 應应 學学 開开 則则 塊块 維维 從从 "
        "實实 經经 長长 與与 單单 優优 讓让 緩缓 並并 無无 啟启 準准 間间 習习 該该 順顺 頭头 發发 "
        "認认 較较 隱隐 環环 區区 讀读 賦赋 檢检 陣阵 驗验 證证 見见 義义 組组 關关 當当 屬属 總总 "
        "統统 註注 敗败 腳脚 備备 遠远 試试 離离 減减 際际 錄录 範范 選选 執执 筆笔 凍冻 網网 輪轮 "
        "構构 說说 線线 亂乱 歷历 負负 強强 約约 難难 斷断 語语 況况 鍵键 絕绝 釋释 絡络 丟丢 佈布 "
        "務务 決决 聲声 觸触 衝冲 創创 續续 視视 補补 項项 異异 檔档 編编 響响 冊册 鉤钩 係系 頂顶 "
        "縮缩 論论 餘余 獨独 齊齐 庫库 驅驱 潰溃 蓋盖 刪删 導导 課课 邊边 遞递 圍围 純纯 萬万 爾尔 "
        "達达 棧栈 誰谁 適适 畫画 體体 斂敛 辦办 幹干 儲储 廣广 損损 葉叶 盤盘 繞绕 繼继 穩稳 飽饱 "
        "譜谱 紋纹 絲丝 戶户 臨临 靈灵 誌志 疊叠 幫帮 價价 譯译 夠够 鏈链 滿满 東东 壓压 頁页 綴缀 "
        "腦脑 棄弃 幀帧 掛挂 師师 窮穷 產产 須须 盪荡 雖虽 許许 滯滞 徹彻 貼贴 規规 兌兑 隊队 熱热 "
        "鐘钟 藥药 舉举 監监 貝贝 兒儿 盡尽 壇坛 閒闲 輔辅 訴诉 節节 談谈 擴扩 細细 電电 廢废 極极 "
        "護护 遷迁 針针 識识 餾馏 禍祸 撐撑 脫脱 跡迹 拋抛 繪绘 擬拟 擇择 閉闭 觀观 剛刚 風风 倉仓 "
        "書书 擋挡 駐驻 漸渐 擺摆 顯显 記记 憶忆 為为 後后 裡里 裏里 問问 題题 嗎吗 於于 運运 動动 "
        "處处 權权 復复 複复 歸归 鬆松 輸输 據据 態态 級级 乾干 淨净 條条 雙双 將将 專专 業业 車车 "
        "軟软 雲云 華华 圓圆 頻频 帶带 滾滚 覽览 籤签 兩两 卻却 週周 併并 殘残 裝装 臺台 漲涨 溫温 "
        "濾滤 鏡镜 綁绑 紀纪 嚴严 懷怀 繫系 聯联 稱称 鄰邻 積积 衛卫 連连 資资 訊讯 緒绪 迴回 儘尽 "
        "佔占 曉晓 慮虑 傷伤 壞坏 劃划 隻只 錢钱 億亿 懸悬 擔担 嘗尝 釘钉 鎖锁 閾阈 彙汇 灣湾 齒齿 "
        "鬥斗 龍龙 龜龟 鳥鸟 魚鱼 馬马 門门 陸陆 爲为 麗丽 鬧闹 傑杰 僅仅 倫伦 債债 傾倾 償偿 兇凶 "
        "劑剂 勢势 勵励 協协 厭厌 厲厉 員员 啞哑 喚唤 喪丧 嘆叹 噸吨 團团 堅坚 墜坠 夢梦 奪夺 奮奋 "
        "婦妇 媽妈 孫孙 寧宁 寶宝 尋寻 屆届 嶄崭 幣币 廳厅 彈弹 徑径 徵征 憂忧 懶懒 戰战 戲戏 捨舍 "
        "掃扫 掙挣 揮挥 搖摇 搶抢 撥拨 擁拥 擊击 擾扰 攜携 敵敌 暫暂 曆历 曬晒 桿杆 楊杨 榮荣 槍枪 "
        "樂乐 樓楼 樞枢 橫横 歡欢 歲岁 毀毁 氣气 漢汉 潛潜 濕湿 灑洒 爐炉 爭争 牆墙 獲获 璽玺 甕瓮 "
        "畢毕 瘋疯 療疗 盜盗 礙碍 禮礼 穀谷 稅税 窩窝 競竞 築筑 簡简 糧粮 緊紧 緣缘 縣县 績绩 織织 "
        "繳缴 罰罚 聖圣 聽听 膠胶 膽胆 臉脸 興兴 艱艰 莊庄 蘇苏 虛虚 號号 蟲虫 術术 製制 襲袭 覺觉 "
        "訂订 託托 訪访 詞词 詳详 誠诚 請请 諸诸 謝谢 讚赞 豐丰 賴赖 贊赞 趕赶 趨趋 踐践 軌轨 輕轻 "
        "輯辑 辭辞 農农 逕径 遲迟 邏逻 郵邮 醫医 釣钓 鋼钢 鍊链 鎮镇 鐵铁 閃闪 閱阅 闊阔 險险 隸隶 "
        "雜杂 靜静 韌韧 頓顿 頒颁 領领 頸颈 額额 顆颗 顧顾 飛飞 飯饭 養养 餅饼 驚惊 髮发 鹽盐 麥麦 "
        "黃黄 齡龄 驟骤 潔洁 勻匀 憑凭 韓韩 淺浅 滅灭 蕭萧 寬宽 縱纵 橢椭 錨锚 闕阙 擷撷 擲掷 樁桩 "
        "瑣琐 縛缚 輻辐 鑑鉴 鑒鉴"
    ).split()
)
_WORDS = {
    # Taiwan's words for what the recipes call 内存, 显卡, 数据, 程序, 函数...
    "显示记忆体": "显存",
    "记忆体": "内存",
    "显示卡": "显卡",
    "资料": "数据",
    "程式": "程序",
    "函式": "函数",
    "模组": "模块",
    "预设": "默认",
    "变数": "变量",
    "阵列": "数组",
    "回圈": "循环",
    "执行绪": "线程",
    "物件": "对象",
    "溢位": "溢出",
    "乱数": "随机数",
    "档案": "文件",
    "硬碟": "硬盘",
    "讯息": "信息",
    "支援": "支持",
    # and words both sides use for the same thing
    "载入": "加载",
    "执行": "运行",
}
_TABLE = str.maketrans(_CHARACTERS)


def as_simplified(text: str) -> str:
    """`text` with traditional characters and Taiwan's words as simplified Chinese."""
    text = text.translate(_TABLE)
    if any(word in text for word in _WORDS):
        for word, simplified in _WORDS.items():
            text = text.replace(word, simplified)
    return text
